"""The signal family: everything onnxcraft knows about its operators.

Operators: BlackmanWindow, DFT, HammingWindow, HannWindow, MelWeightMatrix, STFT.

Parts: ``rules``, ``kernels``, ``recipes``, ``shapes``.
"""
