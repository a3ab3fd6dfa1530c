"""The rotary family: its rules, kernels and recipes.

Rules for RotaryEmbedding: the output has the input's type and shape.
"""
