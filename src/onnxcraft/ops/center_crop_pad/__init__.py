"""The center crop pad family: everything onnxcraft knows about its operators.

Operators: CenterCropPad.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
