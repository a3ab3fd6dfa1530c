"""The normalization family: its rules, kernels and recipes.

Rules for the normalizations: Batch (every version, training outputs), Instance, Layer
"""
