"""The logical family: its rules, kernels, gradients and recipes.

Rules for comparisons, logic, bitwise operators, IsNaN/IsInf and Where.
"""
