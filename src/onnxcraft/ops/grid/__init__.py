"""The grid family: everything onnxcraft knows about its operators.

Operators: AffineGrid, GridSample.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
