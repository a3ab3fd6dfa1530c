"""The control family: its rules, kernels and recipes.

Rules for If, Loop, Scan and SequenceMap: output types come from the traced bodies.
"""
