"""The tensor ops family: everything onnxcraft knows about its operators.

Operators: BitCast, Compress, CumProd, DepthToSpace, Einsum, EyeLike, NonZero, OneHot, Pad,
ReverseSequence, SpaceToDepth, Trilu, Unique.

Parts: ``rules``, ``kernels``, ``recipes``, ``shapes``.
"""
