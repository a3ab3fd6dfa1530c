"""The conv transpose family: its rules, kernels and recipes.

Rules for ConvTranspose (output_shape, output_padding, auto_pad) and Col2Im.
"""
