"""The logical family: everything onnxcraft knows about its operators.

Operators: And, BitShift, BitwiseAnd, BitwiseNot, BitwiseOr, BitwiseXor, Equal, Greater,
GreaterOrEqual, IsInf, IsNaN, Less, LessOrEqual, Not, Or, Where, Xor.

Parts: ``rules``, ``kernels``, ``vjp``, ``recipes``.
"""
