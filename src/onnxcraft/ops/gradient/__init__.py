"""The gradient family: everything onnxcraft knows about its operators.

Operators: ai.onnx.preview.training::Gradient.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
