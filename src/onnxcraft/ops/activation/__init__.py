"""The activation family: its rules, kernels, gradients and recipes.

Rules for the activations: elementwise ones keep the input's type; PRelu broadcasts its slope
"""
