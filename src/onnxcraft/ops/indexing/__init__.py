"""The indexing family: its rules, kernels, gradients and recipes.

Rules for Gather and the other indexing operators.
"""
