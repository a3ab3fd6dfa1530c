"""The math unary family: its rules, kernels, gradients and recipes.

Rules for the elementwise math functions (Abs, Exp, Sin, ...): the input's type unchanged.
"""
