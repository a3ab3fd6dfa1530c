"""Relu's clamp against a shared array of zeros gives what numpy's maximum with a scalar 0
gives, bit for bit (NaN payloads and signed zeros too), in place and not, for every layout."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.ops.clamp import at_least_zero, zeros_like_view
from onnxcraft.opset.ai.onnx import v21 as op

_SPECIALS = [-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45, -2.5, 3.25]


@st.composite
def arrays(draw: Any) -> np.ndarray:
    dtype = draw(
        st.sampled_from([np.float32, np.float64, np.float16, np.int8, np.int32, np.int64, np.uint8])
    )
    shape = tuple(draw(st.lists(st.integers(0, 9), min_size=0, max_size=4)))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    size = int(np.prod(shape))
    if np.dtype(dtype).kind == "f":
        values = rng.choice(np.array(_SPECIALS, dtype), size) * rng.standard_normal(size).astype(
            dtype
        )
        values = np.where(
            rng.random(size) < 0.3, rng.choice(np.array(_SPECIALS, dtype), size), values
        )
    else:
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, size, dtype=dtype, endpoint=True)
    x = values.astype(dtype).reshape(shape)
    if x.ndim >= 2 and draw(st.booleans()):
        x = x.swapaxes(0, -1)  # not C-contiguous
    return x


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


@settings(max_examples=200, deadline=None)
@given(arrays())
def test_equals_maximum_with_scalar_zero(x: np.ndarray) -> None:
    expected = np.maximum(x, np.zeros((), x.dtype))
    got = at_least_zero(x)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert _bits(got) == _bits(expected)
    inplace = x.copy()
    assert at_least_zero(inplace, out=inplace) is inplace
    assert _bits(inplace) == _bits(expected)


def test_specials_and_long_runs() -> None:
    # Long enough for every SIMD width and a tail; signed zeros and NaNs of both signs.
    for dtype in (np.float16, np.float32, np.float64):
        x = np.tile(np.array(_SPECIALS, dtype), 10_001)[:100_003]
        assert _bits(at_least_zero(x)) == _bits(np.maximum(x, dtype(0)))


def test_zeros_are_shared_and_read_only() -> None:
    big = zeros_like_view(np.empty((3, 50_000), np.float32))
    small = zeros_like_view(np.empty((7,), np.float32))
    assert not big.flags.writeable and not small.flags.writeable
    assert not big.any() and big.shape == (3, 50_000)
    with pytest.raises(ValueError):
        small[0] = 1.0


def test_relu_node_and_merged_relu_unchanged() -> None:
    rng = np.random.default_rng(3)
    X = oc.arg("X", np.float32, (2, 3, 5, 4))
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    hidden = op.Relu(op.Conv(X, w, pads=(1, 1, 1, 1)))  # merged into the Conv (fuse=True)
    model = oc.build([X], {"Y": op.Relu(op.Add(hidden, -0.25)), "Z": op.Relu(X)})
    x = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
    x[0, 0, 0, :2] = (-0.0, np.nan)
    fused = oc.evaluate(model, {"X": x})
    written = oc.evaluate(model, {"X": x}, fuse=False)
    conv = oc.evaluate(op.Conv(X, w, pads=(1, 1, 1, 1)), {X: x})["output"]
    expected_y = np.maximum(np.maximum(conv, np.float32(0)) + np.float32(-0.25), np.float32(0))
    for values in (fused, written):
        assert _bits(values["Y"]) == _bits(expected_y)
        assert _bits(values["Z"]) == _bits(np.maximum(x, np.float32(0)))
