"""The nms family: its rules, kernels and recipes.

Rule for NonMaxSuppression: a data-dependent number of (batch, class, box) index triples.
"""
