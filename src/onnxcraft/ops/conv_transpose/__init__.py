"""The conv transpose family: everything onnxcraft knows about its operators.

Operators: Col2Im, ConvTranspose.

Parts: ``rules``, ``kernels``, ``recipes``, ``shapes``.
"""
