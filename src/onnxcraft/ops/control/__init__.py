"""The control family: everything onnxcraft knows about its operators.

Operators: If, Loop, Scan, SequenceMap.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
