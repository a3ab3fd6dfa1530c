"""The gradient family: its rules, kernels and recipes.

Rule for Gradient (ai.onnx.preview.training): output i is dy/dx_i, typed as x_i.
"""
