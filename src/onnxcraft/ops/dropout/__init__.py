"""The dropout family: its rules, kernels and recipes.

Rule for Dropout: output as the data; the mask has the data's shape (its type before
"""
