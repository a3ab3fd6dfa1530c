"""The ml models family: its rules, kernels and recipes.

Rules for the ai.onnx.ml models: tree ensembles, linear and SVM classifiers and regressors.
"""
