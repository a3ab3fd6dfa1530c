"""The tensor ops family: its rules, kernels and recipes.

Rules for Pad, Trilu, EyeLike, OneHot, Compress, NonZero, Unique, CumProd, ReverseSequence,
"""
