"""The attention family: its rules, kernels and recipes.

Rules of the attention family: Attention and TensorScatter.
"""
