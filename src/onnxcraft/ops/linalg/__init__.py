"""The linalg family: its rules, kernels, gradients and recipes.

Rules for MatMul, Gemm and Det.
"""
