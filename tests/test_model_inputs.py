"""Every API that takes a model takes any model: onnxcraft's ModelProto, onnx's ModelProto, an
IR model, the model's bytes, or the path of its file (str or Path), converted once at the
entry (`onnxcraft.io.model_ir`). Each kind gives the same result; bad input is an onnxcraft
error naming what it got."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

import onnxcraft as oc
from onnxcraft.io import model_ir as read_model_ir
from onnxcraft.opset.ai.onnx import v21 as op

W = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)


def _model() -> Any:
    x = oc.arg("X", np.float32, ("N", 4))
    return oc.build([x], {"Y": op.Relu(op.Add(op.MatMul(x, W), -0.2))}, name="mlp")


KINDS = ["onnxcraft", "onnx", "ir", "bytes", "str path", "Path"]


def _as(kind: str, tmp_path: Path) -> Any:
    model = _model()
    if kind == "onnxcraft":
        return model
    if kind == "onnx":
        return onnx.load_from_string(model.SerializeToString())
    if kind == "ir":
        x = oc.arg("X", np.float32, ("N", 4))
        return oc.build_ir([x], {"Y": op.Relu(op.Add(op.MatMul(x, W), -0.2))}, name="mlp")
    if kind == "bytes":
        return model.SerializeToString()
    path = tmp_path / "mlp.onnx"
    oc.save(model, path)
    return str(path) if kind == "str path" else path


def _expected() -> np.ndarray:
    return np.maximum(X @ W - np.float32(0.2), 0)


@pytest.mark.parametrize("kind", KINDS)
def test_evaluate_and_evaluator(kind: str, tmp_path: Path) -> None:
    model = _as(kind, tmp_path)
    np.testing.assert_allclose(oc.evaluate(model, {"X": X})["Y"], _expected(), rtol=1e-6)
    np.testing.assert_allclose(oc.Evaluator(model).run({"X": X})["Y"], _expected(), rtol=1e-6)


@pytest.mark.parametrize("kind", KINDS)
def test_check(kind: str, tmp_path: Path) -> None:
    oc.check(_as(kind, tmp_path))  # a valid model: no error


@pytest.mark.parametrize("kind", KINDS)
def test_infer_shapes(kind: str, tmp_path: Path) -> None:
    inferred = oc.infer_shapes(_as(kind, tmp_path))
    model_ir = inferred if isinstance(inferred, oc.ir.Model) else read_model_ir(inferred)
    (output,) = model_ir.graph.outputs
    assert str(output.type) == "tensor(float)[N, 3]"


@pytest.mark.parametrize("kind", KINDS)
def test_inline(kind: str, tmp_path: Path) -> None:
    x = oc.arg("X", np.float32, ("N", 4))
    (y,) = oc.inline(_as(kind, tmp_path), X=x).values()
    outer = oc.build([x], {"Z": op.Neg(y)})
    np.testing.assert_allclose(oc.evaluate(outer, {"X": X})["Z"], -_expected(), rtol=1e-6)


def test_bad_bytes_are_an_onnxcraft_error() -> None:
    with pytest.raises(oc.ModelFileError, match=r"<9 bytes>: not a valid ONNX model"):
        oc.check(b"not onnx!")


def test_a_missing_file_is_an_onnxcraft_error(tmp_path: Path) -> None:
    with pytest.raises(oc.ModelFileError, match="cannot read the model file"):
        oc.evaluate(tmp_path / "missing.onnx", {"X": X})


def test_something_else_is_named() -> None:
    with pytest.raises(oc.OnnxcraftError, match=r"check: model: expected a ModelProto.*got int"):
        oc.check(42)
