"""The pool family: everything onnxcraft knows about its operators.

Operators: AveragePool, GlobalAveragePool, GlobalLpPool, GlobalMaxPool, LpPool, MaxPool,
MaxUnpool.

Parts: ``rules``, ``kernels``, ``vjp``, ``recipes``.
"""
