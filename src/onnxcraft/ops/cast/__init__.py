"""The cast family: its rules, kernels, gradients and recipes.

Rules for Cast and CastLike: the input's shape, the target element type.
"""
