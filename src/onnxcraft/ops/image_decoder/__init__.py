"""The image decoder family: everything onnxcraft knows about its operators.

Operators: ImageDecoder.

Parts: ``rules``, ``kernels``, ``recipes``, and the helpers ``bmp``, ``jpeg``, ``png``, ``pnm``,
``tiff``.
"""
