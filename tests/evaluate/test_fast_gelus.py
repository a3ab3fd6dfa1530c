"""Gelu of float32 values in float32 arithmetic (``onnxcraft.ops.fast_gelu``, taken by the
prepared plan: ``onnxcraft.evaluate.fast_gelus``): within its documented bound of the true
value everywhere, special values as the written kernel's, and only where it may be taken."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.ops.activation.kernels import gelu
from onnxcraft.ops.fast_gelu import gelu_float32
from onnxcraft.opset.ai.onnx import v21 as op

# The module's bound, in float32 ulp of the true value, by |x| (below: the bound up to there)
BOUNDS = ((1.0, 8.0), (3.0, 12.0), (6.0, 35.0), (math.inf, 130.0))


def _true_gelu(x: np.ndarray) -> np.ndarray:
    """x * Phi(x) in float64, Phi through erfc (accurate in relative terms in both tails)."""
    return np.array([v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in x.astype(np.float64)])


def _assert_within_bound(x: np.ndarray) -> None:
    got = gelu_float32(x).astype(np.float64)
    want = _true_gelu(x)
    normal = np.abs(want) >= np.finfo(np.float32).tiny
    ulps = np.abs(got - want)[normal] / np.spacing(np.abs(want[normal]).astype(np.float32))
    magnitude = np.abs(x[normal])
    low = 0.0
    for high, bound in BOUNDS:
        region = (magnitude >= low) & (magnitude < high)
        assert float(ulps[region].max(initial=0.0)) <= bound, (low, high)
        low = high
    # below float32's normal range Phi is subnormal first (Gelu is |x| times it): within
    # |x| + 1 of float32's smallest subnormal step
    steps = np.abs(got - want)[~normal] / ((np.abs(x[~normal]) + 1) * 2.0**-149)
    assert float(steps.max(initial=0.0)) <= 1.0


def test_within_the_bound_on_a_dense_grid() -> None:
    _assert_within_bound(np.linspace(-13, 13, 1_000_001, dtype=np.float32))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.floats(-30, 30, width=32, allow_nan=False, allow_infinity=False),
        min_size=1,
        max_size=200,
    )
)
def test_within_the_bound_on_drawn_values(values: list[float]) -> None:
    _assert_within_bound(np.array(values, np.float32))


def test_special_values_as_the_written_kernel() -> None:
    big, tiny = np.finfo(np.float32).max, np.finfo(np.float32).smallest_subnormal
    x = np.array(
        [np.inf, -np.inf, np.nan, 0.0, -0.0, big, -big, 1e30, -1e30, tiny, -tiny, 1e-40, -1e-40],
        np.float32,
    )
    with np.errstate(invalid="ignore"):  # (the written kernel's inf * 0 says so)
        want = gelu(x)
    got = gelu_float32(x)
    np.testing.assert_array_equal(got, want)  # (nan where nan)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (5,), (2, 40_000)])
def test_shapes_and_strides(shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    got = gelu_float32(x)
    assert got.shape == x.shape and got.dtype == np.float32
    if x.ndim == 2:  # a transposed view: the same values, by position
        np.testing.assert_array_equal(gelu_float32(x.T), got.T)
    _assert_within_bound(x.reshape(-1))


def _gelu_model(dtype: Any, approximate: str = "none") -> Any:
    x = oc.arg("X", dtype, ("N", 16))
    return oc.build([x], {"Y": op.Gelu(op.Mul(x, np.asarray(1.5, dtype)), approximate=approximate)})


def test_the_prepared_plan_takes_it_for_float32() -> None:
    rng = np.random.default_rng(2)
    feed = {"X": (rng.standard_normal((64, 16)) * 3).astype(np.float32)}
    model = _gelu_model(np.float32)
    fused = oc.evaluate(model, feed)["Y"]
    written = oc.evaluate(model, feed, fuse=False)["Y"]
    np.testing.assert_array_equal(fused, gelu_float32(feed["X"] * np.float32(1.5)))
    assert not np.array_equal(fused, written)  # (the float32 arithmetic rounds otherwise)
    assert float(np.abs(fused - written).max()) <= 1e-5 * (float(np.abs(written).max()) + 1)


@pytest.mark.parametrize(
    ("dtype", "approximate"),
    [(np.float64, "none"), (np.float16, "none"), (np.float32, "tanh")],
)
def test_other_cases_run_the_written_kernel(dtype: Any, approximate: str) -> None:
    rng = np.random.default_rng(3)
    feed = {"X": (rng.standard_normal((8, 16)) * 3).astype(dtype)}
    model = _gelu_model(dtype, approximate)
    fused = oc.evaluate(model, feed)["Y"]
    np.testing.assert_array_equal(fused, oc.evaluate(model, feed, fuse=False)["Y"])
