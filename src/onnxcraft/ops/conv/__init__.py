"""The conv family: everything onnxcraft knows about its operators.

Operators: Conv, ConvInteger, QLinearConv.

Parts: ``rules``, ``kernels``, ``vjp``, ``recipes``, ``shapes``; ``prepared`` (a Conv with
constant weights, prepared once for the evaluator) with its ``scratch`` arrays,
``winograd`` (F(2x2, 3x3)), ``depthwise`` (banded products, one per channel) and
``phases`` (the taps of a strided kernel by stride phase).
"""
