"""Softmax, LogSoftmax and LayerNormalization compute in place (one new array, no
temporaries): the same values, bit for bit, as their formulas written out with a new array
per operation (the reference functions below), for drawn shapes, axes and float types."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft.errors import EvaluationError
from onnxcraft.evaluate.kernels import default_registry


def _kernel(op: str, since: int) -> Any:
    entry = default_registry().lookup("", op, since)
    assert entry is not None
    return entry.fn


def _softmax_written(x: np.ndarray, axis: int, log: bool) -> np.ndarray:
    wide = x.astype(np.float64) if x.dtype == np.float16 else x
    shifted = wide - np.max(wide, axis=axis, keepdims=True)
    exp = np.exp(shifted)
    total = np.sum(exp, axis=axis, keepdims=True)
    return (shifted - np.log(total) if log else exp / total).astype(x.dtype)


def _layer_norm_written(x: np.ndarray, scale: np.ndarray, b: np.ndarray | None, axis: int) -> Any:
    ct = np.float64 if x.dtype == np.float64 else np.float32
    xf = x.astype(ct)
    axes = tuple(range(axis % x.ndim, x.ndim))
    mean = xf.mean(axis=axes, keepdims=True)
    inv_std = 1 / np.sqrt(((xf - mean) ** 2).mean(axis=axes, keepdims=True) + ct(1e-5))
    y = (xf - mean) * inv_std * scale.astype(ct)
    if b is not None:
        y = y + b.astype(ct)
    return y.astype(x.dtype), mean.astype(np.float32), inv_std.astype(np.float32)


@st.composite
def tensors(draw: Any) -> tuple[np.ndarray, int]:
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=1, max_size=4)))
    dtype = draw(st.sampled_from([np.float32, np.float64, np.float16]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = (rng.standard_normal(shape) * draw(st.sampled_from([0.1, 3.0, 60.0]))).astype(dtype)
    if draw(st.booleans()):
        x.flat[rng.integers(0, x.size)] = draw(st.sampled_from([np.inf, -np.inf, np.nan]))
    if x.ndim > 1 and draw(st.booleans()):
        x = x.swapaxes(0, -1)
    return x, draw(st.integers(-x.ndim, x.ndim - 1))


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@settings(max_examples=80, deadline=None)
@given(tensors(), st.booleans())
def test_softmax_as_written(case: tuple[np.ndarray, int], log: bool) -> None:
    x, axis = case
    if x.dtype == np.float16:
        x = x.astype(np.float32)  # float16 runs the standard's body in its type, elsewhere
    kernel = _kernel("LogSoftmax" if log else "Softmax", 13)
    with np.errstate(all="ignore"):
        assert _same(kernel(x, axis=axis), _softmax_written(x, axis, log))


@settings(max_examples=80, deadline=None)
@given(tensors(), st.booleans())
def test_layer_norm_as_written(case: tuple[np.ndarray, int], bias: bool) -> None:
    x, axis = case
    rng = np.random.default_rng(1)
    scale = rng.standard_normal(x.shape[axis:]).astype(x.dtype)
    b = rng.standard_normal(scale.shape).astype(x.dtype) if bias else None
    with np.errstate(all="ignore"):
        got = _kernel("LayerNormalization", 17)(x, scale, b, axis=axis)
        expected = _layer_norm_written(x, scale, b, axis)
    for g, e in zip(got, expected, strict=True):
        assert _same(g, e)


def test_layer_norm_errors_unchanged() -> None:
    layer_norm = _kernel("LayerNormalization", 17)
    x = np.ones((2, 3, 4), np.float32)
    with pytest.raises(EvaluationError, match="must broadcast to the normalized shape"):
        layer_norm(x, np.ones(5, np.float32))
    with pytest.raises(EvaluationError, match=r"broadcast the output to \(5, 2, 3, 4\)"):
        layer_norm(x, np.ones((5, 1, 1, 4), np.float32))
