"""The shape family: everything onnxcraft knows about its operators.

Operators: Concat, Expand, Flatten, Identity, Reshape, Shape, Size, Slice, Split, Squeeze, Tile,
Transpose, Unsqueeze.

Parts: ``rules``, ``kernels``, ``vjp``, ``recipes``, ``shapes``.
"""
