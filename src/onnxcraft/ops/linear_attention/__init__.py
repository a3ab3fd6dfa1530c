"""The linear attention family: everything onnxcraft knows about its operators.

Operators: LinearAttention.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
