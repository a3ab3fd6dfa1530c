"""The normalization family: everything onnxcraft knows about its operators.

Operators: BatchNormalization, GroupNormalization, InstanceNormalization, LRN,
LayerNormalization, LpNormalization, MeanVarianceNormalization, RMSNormalization.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
