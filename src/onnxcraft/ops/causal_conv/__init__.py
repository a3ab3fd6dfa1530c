"""The causal conv family: its rules, kernels and recipes.

Rule for CausalConvWithState: (B, C, L) by a depthwise (C, 1, k) kernel, carrying k - 1 steps
"""
