"""The constant family: its rules, kernels and recipes.

Rules for Constant, ConstantOfShape and Range: operators that make a tensor from values.
"""
