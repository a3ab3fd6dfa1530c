"""The nms family: everything onnxcraft knows about its operators.

Operators: NonMaxSuppression.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
