"""The ml family: its rules, kernels and recipes.

Rules for the ai.onnx.ml transforms: encoders, scalers, imputers, map and feature plumbing.
"""
