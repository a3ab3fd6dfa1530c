"""The attention family: everything onnxcraft knows about its operators.

Operators: Attention, TensorScatter.

Parts: ``rules``, ``kernels``, ``recipes``, ``shapes``.
"""
