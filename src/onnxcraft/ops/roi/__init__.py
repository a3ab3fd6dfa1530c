"""The roi family: everything onnxcraft knows about its operators.

Operators: MaxRoiPool, RoiAlign.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
