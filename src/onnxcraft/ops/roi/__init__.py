"""The roi family: its rules, kernels and recipes.

Rules for RoiAlign and MaxRoiPool: one pooled (C, H', W') map per region of interest.
"""
