"""The rotary family: everything onnxcraft knows about its operators.

Operators: RotaryEmbedding.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
