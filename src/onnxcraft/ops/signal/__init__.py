"""The signal family: its rules, kernels and recipes.

Rules of the signal family: DFT, STFT, the cosine-sum windows and MelWeightMatrix.
"""
