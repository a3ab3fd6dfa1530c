"""The cast family: everything onnxcraft knows about its operators.

Operators: Cast, CastLike.

Parts: ``rules``, ``kernels``, ``vjp``, ``recipes``.
"""
