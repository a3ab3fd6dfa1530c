"""The linear attention family: its rules, kernels and recipes.

The rule of LinearAttention (opset 27).
"""
