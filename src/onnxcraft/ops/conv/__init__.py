"""The conv family: everything onnxcraft knows about its operators.

Operators: Conv, ConvInteger, QLinearConv.

Parts: ``rules``, ``kernels``, ``vjp``, ``recipes``, ``shapes``.
"""
