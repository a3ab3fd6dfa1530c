"""The flex attention family: everything onnxcraft knows about its operators.

Operators: ai.onnx.preview::FlexAttention.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
