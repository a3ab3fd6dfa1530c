"""The pool family: its rules, kernels, gradients and recipes.

Rules for pooling: MaxPool (and its Indices), AveragePool, LpPool, the Global forms,
"""
