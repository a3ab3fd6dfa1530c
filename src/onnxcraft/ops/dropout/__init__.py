"""The dropout family: everything onnxcraft knows about its operators.

Operators: Dropout.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
