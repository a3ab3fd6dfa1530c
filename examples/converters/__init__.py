"""A gallery of scikit-learn converters written with onnxcraft's public API.

Each module converts one kind of fitted estimator to an ONNX model; ``docs/converters/``
shows each one with its check against scikit-learn. Modules import only onnxcraft, numpy and
the small helpers beside them (``classes``, ``thresholds``, ``trees``).
"""
