"""A converter for a model with large weights: a multilayer perceptron, saved with external data.

``oc.build_ir`` returns the model as onnxcraft's IR, which keeps the weight arrays themselves
(no copy), and ``oc.save(..., external_data=True)`` writes each array from its own memory into
``<model>.data``: at no point does a second copy of the weights exist. With ``oc.build`` the
weights are copied into protobuf messages first, which for gigabytes of weights means gigabytes
more memory and seconds of copying.

Run it: ``python examples/large_mlp.py [output.onnx] [--hidden 4096]`` (4096 hidden units make
about 135 MB of float32 weights).
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from pathlib import Path

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op

Layer = tuple[np.ndarray, np.ndarray]  # weights (in, out), bias (out,)


def convert_mlp(layers: list[Layer]) -> oc.ir.Model:
    """``Y = relu(... relu(X W1 + b1) ...) Wn + bn`` with X of shape (N, in)."""
    X = oc.arg("X", np.float32, ("N", layers[0][0].shape[0]))
    hidden = X
    for index, (weights, bias) in enumerate(layers):
        hidden = op.Add(op.MatMul(hidden, weights), bias)
        if index < len(layers) - 1:
            hidden = op.Relu(hidden)
    return oc.build_ir(inputs=[X], outputs={"Y": hidden}, name="mlp")


def reference(X: np.ndarray, layers: list[Layer]) -> np.ndarray:
    hidden = X.astype(np.float64)
    for index, (weights, bias) in enumerate(layers):
        hidden = hidden @ weights + bias
        if index < len(layers) - 1:
            hidden = np.maximum(hidden, 0)
    return hidden


def random_layers(sizes: list[int], seed: int = 0) -> list[Layer]:
    rng = np.random.default_rng(seed)
    return [
        (
            (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32),
            rng.standard_normal(n_out).astype(np.float32) * 0.1,
        )
        for n_in, n_out in itertools.pairwise(sizes)
    ]


def main(path: str | None = None, hidden: int = 512) -> dict[str, np.ndarray]:
    layers = random_layers([64, hidden, hidden, hidden, 10])
    weight_bytes = sum(w.nbytes + b.nbytes for w, b in layers)
    # Tensors under save's size_threshold (1 KiB by default) stay inline in the model file.
    external_bytes = sum(a.nbytes for layer in layers for a in layer if a.nbytes >= 1024)
    started = time.perf_counter()
    model = convert_mlp(layers)
    oc.check(model)
    X = np.random.default_rng(1).standard_normal((8, 64)).astype(np.float32)
    outputs = oc.evaluate(model, {"X": X})
    np.testing.assert_allclose(outputs["Y"], reference(X, layers), rtol=1e-4, atol=1e-4)

    # A scratch folder, removed afterwards, unless a path is given.
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(path) if path else Path(scratch) / "mlp.onnx"
        oc.save(model, target, external_data=True)
        elapsed = time.perf_counter() - started
        data_file = target.with_name(target.name + ".data")
        assert data_file.stat().st_size >= external_bytes  # the weights went to the side file
        assert target.stat().st_size < 4096  # the model file only refers to them

        reloaded = oc.load(target)  # external data is read back from beside the model
        np.testing.assert_array_equal(oc.evaluate(reloaded, {"X": X})["Y"], outputs["Y"])
        print(
            f"built, checked, evaluated and saved {weight_bytes / 1e6:.1f} MB of weights in "
            f"{elapsed:.2f} s: {target} ({target.stat().st_size} bytes) + {data_file.name}"
        )
    return outputs


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", nargs="?")
    parser.add_argument("--hidden", type=int, default=512)
    args = parser.parse_args()
    main(args.path, args.hidden)
