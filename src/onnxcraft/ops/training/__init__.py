"""The training family: everything onnxcraft knows about its operators.

Operators: ai.onnx.preview.training::Adagrad, ai.onnx.preview.training::Adam,
ai.onnx.preview.training::Momentum.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
