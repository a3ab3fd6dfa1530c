"""The constant family: everything onnxcraft knows about its operators.

Operators: Constant, ConstantOfShape, Range.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
