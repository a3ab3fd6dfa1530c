"""A KMeans converter: cluster labels and distances to every centroid, as ONNX.

For inputs X (N, F) and centroids C (K, F) the model computes the squared distances
``|x|^2 - 2 x.c + |c|^2`` with ReduceSumSquare, MatMul and Add, the label with ArgMin and the
distances with Sqrt, the way scikit-learn's ``KMeans.predict`` / ``transform`` do.

Run it: ``python examples/kmeans.py [output.onnx]``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op


def convert_kmeans(centroids: np.ndarray) -> oc.proto.ModelProto:
    """A model with outputs ``label`` (N,) int64 and ``distances`` (N, K) float32."""
    n_features = centroids.shape[1]
    X = oc.arg("X", np.float32, ("N", n_features))
    x_norms = op.ReduceSumSquare(X, np.array([1], np.int64), keepdims=1)  # (N, 1)
    c_norms = (centroids.astype(np.float64) ** 2).sum(axis=1).astype(np.float32)  # (K,)
    cross = op.MatMul(X, (-2.0 * centroids.T).astype(np.float32))  # (N, K)
    squared = op.Add(op.Add(x_norms, cross), c_norms)
    # Rounding can make tiny squared distances negative: clamp before the square root.
    squared = op.Relu(squared).named("squared_distances")
    label = op.ArgMin(squared, axis=1, keepdims=0)
    distances = op.Sqrt(squared)
    return oc.build(inputs=[X], outputs={"label": label, "distances": distances}, name="kmeans")


def reference(X: np.ndarray, centroids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same computation in plain numpy (float64), as scikit-learn defines it."""
    diff = X[:, None, :].astype(np.float64) - centroids[None, :, :]
    distances = np.sqrt((diff**2).sum(axis=2))
    return distances.argmin(axis=1), distances


def main(path: str | None = None) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    centroids = rng.standard_normal((3, 4)).astype(np.float32) * 3
    X = (centroids[rng.integers(0, 3, 20)] + rng.standard_normal((20, 4))).astype(np.float32)
    model = convert_kmeans(centroids)
    oc.check(model)
    outputs = oc.evaluate(model, {"X": X})
    labels, distances = reference(X, centroids)
    np.testing.assert_array_equal(outputs["label"], labels)
    np.testing.assert_allclose(outputs["distances"], distances, rtol=1e-4, atol=1e-4)
    # A scratch folder, removed afterwards, unless a path is given.
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(path) if path else Path(scratch) / "kmeans.onnx"
        oc.save(model, target)
        print(f"saved {target}; labels and distances match numpy")
    return outputs


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
