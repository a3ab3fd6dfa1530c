"""The training family: its rules, kernels and recipes.

Rules of the training family (domain ai.onnx.preview.training): Adagrad, Adam, Momentum.
"""
