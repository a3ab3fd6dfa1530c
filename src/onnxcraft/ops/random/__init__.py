"""The random family: everything onnxcraft knows about its operators.

Operators: Bernoulli, Multinomial, RandomNormal, RandomNormalLike, RandomUniform,
RandomUniformLike.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
