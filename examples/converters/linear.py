"""StandardScaler + LogisticRegression: labels and probabilities, as a tensor or a ZipMap.

A fitted ``make_pipeline(StandardScaler(), LogisticRegression())`` computes

    z = ((x - mean_) / scale_) @ coef_.T + intercept_

and, with two classes, ``p = sigmoid(z)`` (one column: the second class) and probabilities
``[1 - p, p]``, the label being the second class when ``z > 0``; with more classes, softmax
probabilities and the label of the largest ``z``. The probabilities come out as an (N, classes)
tensor or, with ``use_zipmap=True``, as one {label: probability} map per row (ai.onnx.ml's
ZipMap), the form many deployed converters emit.

``dtype`` is the type the model reads and computes in: float32 is what runtimes expect;
float64 gives scikit-learn's own numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op

from .classes import label_array, zipmap


def convert_scaled_logistic(
    pipeline: Any, *, dtype: type[np.floating[Any]] = np.float32, use_zipmap: bool = False
) -> oc.proto.ModelProto:
    """A two-step pipeline (StandardScaler, LogisticRegression) as a model with outputs
    ``label`` (N,) and ``probabilities``."""
    scaler, classifier = pipeline[0], pipeline[-1]
    n_features = classifier.coef_.shape[1]
    X = oc.arg("X", dtype, ("N", n_features))

    scaled = X
    if scaler.mean_ is not None:  # StandardScaler(with_mean=False) has no mean
        scaled = scaled - scaler.mean_.astype(dtype)
    if scaler.scale_ is not None:
        scaled = scaled / scaler.scale_.astype(dtype)
    scores = op.Gemm(
        scaled, classifier.coef_.astype(dtype), classifier.intercept_.astype(dtype), transB=1
    )

    labels = label_array(classifier.classes_)
    if len(labels) == 2:
        positive = op.Sigmoid(scores)  # (N, 1): the probability of the second class
        probabilities = op.Concat(1.0 - positive, positive, axis=1)
        index = op.Cast(op.Reshape(scores, np.array([-1])) > 0.0, to=np.int64)
    else:
        probabilities = op.Softmax(scores, axis=1)
        index = op.ArgMax(scores, axis=1, keepdims=0)
    label = op.Gather(labels, index)
    if use_zipmap:
        probabilities = zipmap(probabilities, classifier.classes_)
    return oc.build(
        inputs=[X], outputs={"label": label, "probabilities": probabilities}, name="logistic"
    )
