"""The math unary family: everything onnxcraft knows about its operators.

Operators: Abs, Acos, Acosh, Asin, Asinh, Atan, Atanh, Ceil, Cos, Cosh, Erf, Exp, Floor, Log,
Neg, Reciprocal, Round, Sign, Sin, Sinh, Sqrt, Tan, Tanh.

Parts: ``rules``, ``kernels``, ``vjp``, ``recipes``.
"""
