"""Pad's default fill when constant_value is omitted: 0, False or the empty string by the
element type (the standard's Pad-13 text), found while writing the spec examples."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v13, v18


def _padded(op: Any, data: np.ndarray) -> np.ndarray:
    x = oc.arg("x", data.dtype.type if data.dtype != object else np.str_, data.shape)
    model = oc.build(inputs=[x], outputs={"y": op.Pad(x, np.array([0, 1, 0, 1], np.int64))})
    return np.asarray(oc.evaluate(model, {"x": data})["y"])


@pytest.mark.parametrize("op", [v13, v18], ids=["v13", "v18"])
def test_strings_are_padded_with_empty_strings(op: Any) -> None:
    got = _padded(op, np.array([["a", "b"]], dtype=object))
    assert got.tolist() == [["", "a", "b", ""]]
    assert all(isinstance(item, str) for item in got.ravel())


@pytest.mark.parametrize(
    ("data", "fill"),
    [
        (np.array([[True]]), False),
        (np.array([[7]], np.int32), 0),
        (np.array([[1.5]], np.float32), 0.0),
    ],
    ids=["bool", "int32", "float32"],
)
def test_other_types_are_padded_with_their_zero(data: np.ndarray, fill: Any) -> None:
    got = _padded(v13, data)
    assert got.dtype == data.dtype
    assert got.tolist() == [[fill, data.item(), fill]]
