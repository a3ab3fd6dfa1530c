"""Model files the command-line tests run the command on, built once per test session."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op


@dataclass(frozen=True)
class Files:
    folder: Path
    mlp: Path  # X[N, 4] -> Y[N, 3], initializers inline
    external: Path  # the same with external data (tensors of 1 KiB or more)
    sequence: Path  # X -> S, a sequence output
    invalid: Path  # two problems: an undefined input and a duplicate value
    x: Path  # a float32 (2, 4) array for X, as .npy


def mlp(hidden: int = 64) -> oc.proto.ModelProto:
    rng = np.random.default_rng(3)
    X = oc.arg("X", np.float32, ("N", 4))
    w1 = rng.standard_normal((4, hidden)).astype(np.float32)
    w2 = rng.standard_normal((hidden, 3)).astype(np.float32)
    h = op.Relu(op.Add(op.MatMul(X, w1), np.float32(0.1))).named("hidden")
    Y = op.Add(op.MatMul(h, w2), np.float32(-0.2))
    return oc.build(inputs=[X], outputs={"Y": Y}, name="mlp")


def _invalid_model(path: Path) -> None:
    X = oc.arg("X", np.float32, (2,))
    model = oc.build_ir(inputs=[X], outputs={"Y": op.Neg(X)}, name="broken")
    model.graph.nodes[0].inputs[0] = "nowhere"  # an input no one defines
    model.graph.nodes.append(oc.ir.Node("Abs", ["X"], ["Y"]))  # Y defined twice
    oc.save(model, path)


@pytest.fixture(scope="session")
def files(tmp_path_factory: pytest.TempPathFactory) -> Files:
    folder = tmp_path_factory.mktemp("cli")
    oc.save(mlp(), folder / "mlp.onnx")
    oc.save(mlp(), folder / "external.onnx", external_data=True)
    X = oc.arg("X", np.float32, ("N",))
    sequence = oc.build(inputs=[X], outputs={"S": op.SequenceConstruct(X, op.Neg(X))})
    oc.save(sequence, folder / "sequence.onnx")
    _invalid_model(folder / "invalid.onnx")
    np.save(folder / "x.npy", np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32))
    return Files(
        folder,
        folder / "mlp.onnx",
        folder / "external.onnx",
        folder / "sequence.onnx",
        folder / "invalid.onnx",
        folder / "x.npy",
    )
