"""The arithmetic family: its rules, kernels, gradients and recipes.

Rules for the arithmetic operators: Add, Sub, Mul, Div, Pow, Mod and Max, Min, Sum, Mean.
"""
