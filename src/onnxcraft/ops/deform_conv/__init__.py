"""The deform conv family: its rules, kernels and recipes.

Rule for DeformConv: a convolution's output shape, with offset and mask checked against it.
"""
