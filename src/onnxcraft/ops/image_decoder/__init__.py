"""The image decoder family: its rules, kernels and recipes.

Rule for ImageDecoder: (height, width, channels) uint8, channels fixed by pixel_format.
"""
