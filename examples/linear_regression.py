"""Build, check, evaluate and save a linear regression model: y = X @ W + b.

Run it: ``python examples/linear_regression.py [output.onnx]``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op


def build_model(weights: np.ndarray, bias: np.ndarray) -> oc.proto.ModelProto:
    """A model computing ``X @ weights + bias`` for any batch size N."""
    X = oc.arg("X", np.float32, ("N", weights.shape[0]))
    Y = op.Add(op.MatMul(X, weights), bias)
    return oc.build(inputs=[X], outputs={"Y": Y}, name="linear_regression")


def main(path: str | None = None) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    weights = rng.standard_normal((4, 3)).astype(np.float32)
    bias = rng.standard_normal(3).astype(np.float32)
    model = build_model(weights, bias)
    oc.check(model)

    X = rng.standard_normal((5, 4)).astype(np.float32)
    outputs = oc.evaluate(model, {"X": X})
    expected = X @ weights + bias
    np.testing.assert_allclose(outputs["Y"], expected, rtol=1e-5, atol=1e-6)

    # A scratch folder, removed afterwards, unless a path is given.
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(path) if path else Path(scratch) / "linear_regression.onnx"
        oc.save(model, target)
        reloaded = oc.load(target)
        again = oc.evaluate(reloaded, {"X": X})
        np.testing.assert_array_equal(again["Y"], outputs["Y"])
        print(f"saved {target} ({target.stat().st_size} bytes); Y matches numpy")
    return outputs


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
