"""The loss family: its rules, kernels and recipes.

Rules for NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
"""
