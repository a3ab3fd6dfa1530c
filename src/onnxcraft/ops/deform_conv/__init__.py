"""The deform conv family: everything onnxcraft knows about its operators.

Operators: DeformConv.

Parts: ``rules``, ``kernels``, ``recipes``, ``shapes``.
"""
