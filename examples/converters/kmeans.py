"""KMeans: the cluster label of each row and its distance to every centre.

``KMeans.predict`` is the nearest centre and ``KMeans.transform`` the Euclidean distances to
all centres. The squared distance expands to ``|x|^2 - 2 x.c + |c|^2``: one MatMul against the
centres instead of an (N, K, F) difference tensor. Rounding can leave a tiny negative value
where a row sits on a centre, so it is clamped at zero before the square root.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op


def convert_kmeans(
    kmeans: Any, *, dtype: type[np.floating[Any]] = np.float32
) -> oc.proto.ModelProto:
    """Outputs ``label`` (N,) int64 and ``distances`` (N, K) of ``dtype``."""
    centres = kmeans.cluster_centers_.astype(np.float64)
    X = oc.arg("X", dtype, ("N", centres.shape[1]))
    row_norms = op.ReduceSumSquare(X, np.array([1]), keepdims=1)  # (N, 1)
    cross = op.MatMul(X, (-2.0 * centres.T).astype(dtype))  # (N, K)
    centre_norms = (centres**2).sum(axis=1).astype(dtype)  # (K,)
    squared = op.Relu(row_norms + cross + centre_norms).named("squared_distances")
    label = op.ArgMin(squared, axis=1, keepdims=0)
    return oc.build(
        inputs=[X], outputs={"label": label, "distances": op.Sqrt(squared)}, name="kmeans"
    )
