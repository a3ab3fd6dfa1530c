"""The conv family: its rules, kernels, gradients and recipes.

Rules for Conv, ConvInteger and QLinearConv: (N, C, D1..Dn) * (M, C/group, k1..kn).
"""
