"""The linalg family: everything onnxcraft knows about its operators.

Operators: Det, Gemm, MatMul.

Parts: ``rules``, ``kernels``, ``vjp``, ``recipes``.
"""
