"""The activation family: everything onnxcraft knows about its operators.

Operators: Celu, Clip, Elu, Gelu, HardSigmoid, HardSwish, Hardmax, LeakyRelu, LogSoftmax, Mish,
PRelu, Relu, Selu, Shrink, Sigmoid, Softmax, Softplus, Softsign, SwiGLU, Swish, ThresholdedRelu.

Parts: ``rules``, ``kernels``, ``vjp``, ``recipes``.
"""
