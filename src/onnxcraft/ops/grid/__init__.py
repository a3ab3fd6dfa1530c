"""The grid family: its rules, kernels and recipes.

Rules for GridSample (2-D from version 16, N-D from 20) and AffineGrid.
"""
