"""The flex attention family: its rules, kernels and recipes.

The rule of FlexAttention (ai.onnx.preview opset 1).
"""
