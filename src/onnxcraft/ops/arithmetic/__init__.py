"""The arithmetic family: everything onnxcraft knows about its operators.

Operators: Add, Div, Max, Mean, Min, Mod, Mul, Pow, Sub, Sum.

Parts: ``rules``, ``kernels``, ``vjp``, ``recipes``.
"""
