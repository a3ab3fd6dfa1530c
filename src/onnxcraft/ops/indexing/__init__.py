"""The indexing family: everything onnxcraft knows about its operators.

Operators: Gather, GatherElements, GatherND, Scatter, ScatterElements, ScatterND.

Parts: ``rules``, ``kernels``, ``vjp``, ``recipes``, ``shapes``.
"""
