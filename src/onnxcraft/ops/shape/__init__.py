"""The shape family: its rules, kernels, gradients and recipes.

Rules for shape manipulation: Reshape, Transpose, Concat, Split, Slice, (Un)Squeeze, Shape,
"""
