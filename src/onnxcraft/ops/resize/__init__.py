"""The resize family: everything onnxcraft knows about its operators.

Operators: Resize, Upsample.

Parts: ``rules``, ``kernels``, ``recipes``, ``shapes``.
"""
