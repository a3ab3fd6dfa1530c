"""The resize family: its rules, kernels and recipes.

Rules for Resize (every version: scales or sizes, ``axes``, ``keep_aspect_ratio_policy``) and
"""
