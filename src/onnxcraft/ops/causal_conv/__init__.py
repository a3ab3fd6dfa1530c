"""The causal conv family: everything onnxcraft knows about its operators.

Operators: CausalConvWithState.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
