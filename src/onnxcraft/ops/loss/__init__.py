"""The loss family: everything onnxcraft knows about its operators.

Operators: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
