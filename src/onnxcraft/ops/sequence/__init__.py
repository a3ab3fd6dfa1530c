"""The sequence family: its rules, kernels and recipes.

Rules for the sequence and optional operators.
"""
