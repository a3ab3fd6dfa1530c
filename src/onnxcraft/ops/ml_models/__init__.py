"""The ml models family: everything onnxcraft knows about its operators.

Operators: ai.onnx.ml::LinearClassifier, ai.onnx.ml::LinearRegressor, ai.onnx.ml::SVMClassifier,
ai.onnx.ml::SVMRegressor, ai.onnx.ml::TreeEnsemble, ai.onnx.ml::TreeEnsembleClassifier,
ai.onnx.ml::TreeEnsembleRegressor.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
