"""Checking a built model with the oracles: onnx's full checker, onnxruntime and our evaluator."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

import onnxcraft as oc


def onnx_model(model: Any) -> onnx.ModelProto:
    return onnx.load_from_string(model.SerializeToString())


def run_ort(model: Any, feeds: dict[str, Any]) -> dict[str, Any]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds)))


def _close(a: Any, b: Any, name: str, rtol: float, atol: float) -> None:
    if isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b), name
        for x, y in zip(a, b):
            _close(x, y, name, rtol, atol)
        return
    if isinstance(b, dict):
        assert a.keys() == b.keys(), name
        for key in b:
            _close(a[key], b[key], name, rtol, atol)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{name}: shape {a.shape} != {b.shape}"
    if b.dtype.kind in "fc":
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=name)
    else:
        np.testing.assert_array_equal(a, b, err_msg=name)


def verify(
    model: Any,
    feeds: dict[str, Any],
    expected: dict[str, Any] | None = None,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    ort_check: bool = True,
) -> dict[str, Any]:
    """onnx's full check passes; onnxruntime and oc.evaluate agree with ``expected``."""
    onnx.checker.check_model(onnx_model(model), full_check=True)
    oc.check(model)
    ours = oc.evaluate(model, feeds)
    if ort_check:
        theirs = run_ort(model, feeds)
        for name, value in theirs.items():
            _close(ours[name], value, f"onnxcraft vs onnxruntime: {name}", rtol, atol)
    for name, value in (expected or {}).items():
        _close(ours[name], value, f"onnxcraft vs expected: {name}", rtol, atol)
    return ours
