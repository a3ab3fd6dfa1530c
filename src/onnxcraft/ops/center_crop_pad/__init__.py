"""The center crop pad family: its rules, kernels and recipes.

Rule for CenterCropPad: the chosen axes take the sizes of the ``shape`` input.
"""
