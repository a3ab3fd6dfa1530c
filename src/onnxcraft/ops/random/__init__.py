"""The random family: its rules, kernels and recipes.

Rules of the random family: RandomNormal, RandomUniform, their ``*Like`` forms, Bernoulli and
"""
