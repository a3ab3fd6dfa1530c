"""GlobalAveragePool as one matrix-vector product (``onnxcraft.evaluate.global_means``,
``fuse=True``): within float rounding of the exact mean, the mean's NaN and infinities, and
the written kernel for whatever the product does not take."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.evaluate.global_means import _by_product
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.opset.ai.onnx import v21 as op

_KERNEL = default_registry().lookup("", "GlobalAveragePool", 1)


def _model(dtype: type, rank: int) -> Any:
    x = oc.arg("X", dtype, ("N", "C", *("S" + str(i) for i in range(rank - 2))))
    return oc.build([x], {"Y": op.GlobalAveragePool(x)})


def _exact(x: np.ndarray) -> np.ndarray:
    """The mean in float64 over the spatial axes (float64 inputs: in long double where the
    platform has it, else float64)."""
    wide = np.longdouble if x.dtype == np.float64 else np.float64
    axes = tuple(range(2, x.ndim))
    return np.asarray(np.mean(x.astype(wide), axis=axes, keepdims=True))


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from([np.float32, np.float64]),
    batch=st.integers(0, 3),
    channels=st.integers(1, 70),
    spatial=st.lists(st.integers(1, 15), min_size=1, max_size=3),
    scale=st.sampled_from([1e-30, 1.0, 1e30]),
    seed=st.integers(0, 2**16),
)
def test_within_rounding_of_the_mean(
    dtype: type, batch: int, channels: int, spatial: list[int], scale: float, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((batch, channels, *spatial)) * scale).astype(dtype)
    model = _model(dtype, x.ndim)
    fused = oc.evaluate(model, {"X": x})["Y"]
    written = oc.evaluate(model, {"X": x}, fuse=False)["Y"]
    assert fused.dtype == written.dtype and fused.shape == written.shape
    # A dot product of n terms: within n units of rounding of the sum of the terms'
    # magnitudes (here divided by n: the mean of |x|), plus the reciprocal's own unit.
    n = int(np.prod(spatial))
    eps = float(np.finfo(dtype).eps)
    magnitude = _exact(np.abs(x))
    bound = (n + 2) * eps * magnitude + np.finfo(dtype).tiny
    assert (np.abs(fused - _exact(x)) <= bound).all()
    assert (np.abs(written - _exact(x)) <= bound).all()  # (the kernel's sum, alike)


def test_the_means_specials() -> None:
    rows = np.array(
        [
            [1.0, 2.0, np.nan, 4.0],  # NaN
            [np.inf, 1.0, 2.0, 3.0],  # inf
            [-np.inf, 1.0, 2.0, 3.0],  # -inf
            [np.inf, -np.inf, 0.0, 0.0],  # NaN
            [-0.0, -0.0, -0.0, -0.0],  # a zero
        ],
        np.float32,
    ).reshape(1, 5, 2, 2)
    model = _model(np.float32, 4)
    (step,) = oc.Evaluator(model)._plan.steps
    assert step.fn is not None and step.fn.__qualname__.startswith("_by_product.")
    with np.errstate(invalid="ignore"):
        fused = oc.evaluate(model, {"X": rows})["Y"].reshape(-1)
        written = oc.evaluate(model, {"X": rows}, fuse=False)["Y"].reshape(-1)
    np.testing.assert_array_equal(np.isnan(fused), np.isnan(written))
    np.testing.assert_array_equal(fused[1:3], [np.inf, -np.inf])
    assert fused[4] == 0.0


def test_what_the_product_leaves_to_the_kernel() -> None:
    assert _KERNEL is not None
    by_product = _by_product(_KERNEL.fn)
    half = np.arange(24, dtype=np.float16).reshape(2, 3, 4)
    empty = np.zeros((2, 3, 0, 4), np.float32)
    no_rows = np.zeros((0, 3, 4, 4), np.float64)
    for x in (half, no_rows):
        got, want = by_product(x), _KERNEL.fn(x)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"), np.errstate(invalid="ignore"):
        got, want = by_product(empty), _KERNEL.fn(empty)  # (numpy's NaN and warning, both)
    assert got.shape == want.shape and np.isnan(got).all() and np.isnan(want).all()
    assert _model(np.float32, 3) is not None  # (rank 3: one spatial axis, as rank 4)
