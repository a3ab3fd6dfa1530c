"""PCA: the projection on the principal components.

``PCA.transform`` centres the rows on ``mean_`` and projects them on ``components_``; with
``whiten=True`` each component is also divided by the square root of its explained variance.
Folding the whitening into the projection matrix and the centring into a bias leaves a single
Gemm: ``x @ W + b`` with ``W = components_.T / sqrt(var)`` and ``b = -mean_ @ W``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op


def convert_pca(pca: Any, *, dtype: type[np.floating[Any]] = np.float32) -> oc.proto.ModelProto:
    """Output ``components`` (N, n_components) of ``dtype``."""
    weights = pca.components_.T.astype(np.float64)  # (F, C)
    if pca.whiten:
        weights = weights / np.sqrt(pca.explained_variance_)
    bias = -pca.mean_ @ weights
    X = oc.arg("X", dtype, ("N", weights.shape[0]))
    projected = op.Gemm(X, weights.astype(dtype), bias.astype(dtype))
    return oc.build(inputs=[X], outputs={"components": projected}, name="pca")
