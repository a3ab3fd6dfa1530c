"""An AveragePool after a 1x1 Conv run before it (``onnxcraft.evaluate.pool_before_conv``,
``fuse=True``), against the nodes as written (``fuse=False``), and its 2x2 stride-2 pool
against the AveragePool kernel, bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.evaluate.pool_before_conv import _mean_of_pairs
from onnxcraft.opset.ai.onnx import v21 as op

RELATIVE = {np.float32: 1e-5, np.float64: 1e-13}  # test_fusion.py's bound


def _model(
    rng: np.random.Generator,
    *,
    channels: int = 4,
    out_channels: int = 3,
    group: int = 1,
    bias: bool = True,
    dtype: type = np.float32,
    conv: dict[str, Any] | None = None,
    pool: dict[str, Any] | None = None,
    kernel: int = 1,
    conv_kept: bool = False,
) -> object:
    x = oc.arg("X", dtype, ("N", channels, "H", "W"))
    w = rng.standard_normal((out_channels, channels // group, kernel, kernel)).astype(dtype)
    b = rng.standard_normal(out_channels).astype(dtype) if bias else None
    y = op.Conv(x, w, b, group=group, **(conv or {}))
    pooled = op.AveragePool(y, **(pool or {"kernel_shape": (2, 2), "strides": (2, 2)}))
    return oc.build([x], {"Y": pooled, "C": y} if conv_kept else {"Y": pooled})


def _order(model: object) -> list[str]:
    return [step.node.op_type for step in oc.Evaluator(model)._plan.steps]


def _assert_close(model: object, feed: np.ndarray, dtype: type) -> None:
    fused = oc.evaluate(model, {"X": feed})["Y"]
    written = oc.evaluate(model, {"X": feed}, fuse=False)["Y"]
    assert fused.dtype == written.dtype and fused.shape == written.shape
    scale = float(np.abs(written).max(initial=0.0)) + 1.0
    assert float(np.abs(fused - written).max(initial=0.0)) <= RELATIVE[dtype] * scale


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    group=st.sampled_from([1, 2]),
    bias=st.booleans(),
    dtype=st.sampled_from([np.float32, np.float64]),
    window=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    strides=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    batch=st.integers(1, 3),
    size=st.tuples(st.integers(3, 11), st.integers(3, 11)),
)
def test_within_rounding_of_as_written(
    seed: int,
    group: int,
    bias: bool,
    dtype: type,
    window: tuple[int, int],
    strides: tuple[int, int],
    batch: int,
    size: tuple[int, int],
) -> None:
    rng = np.random.default_rng(seed)
    pool = {"kernel_shape": window, "strides": strides}
    model = _model(
        rng,
        channels=2 * group,
        out_channels=3 * group,
        group=group,
        bias=bias,
        dtype=dtype,
        pool=pool,
    )
    assert _order(model) == ["AveragePool", "Conv"]
    feed = rng.standard_normal((batch, 2 * group, *size)).astype(dtype)
    _assert_close(model, feed, dtype)


def test_left_as_written() -> None:
    rng = np.random.default_rng(1)
    kept = ["Conv", "AveragePool"]
    assert _order(_model(rng, kernel=3)) == kept
    assert _order(_model(rng, conv={"strides": (2, 2)})) == kept
    assert _order(_model(rng, conv={"pads": (1, 1, 1, 1)})) == kept
    assert _order(_model(rng, conv_kept=True)) == kept
    for pool in (
        {"kernel_shape": (2, 2), "pads": (1, 1, 1, 1)},
        {"kernel_shape": (2, 2), "strides": (2, 2), "ceil_mode": 1},
        {"kernel_shape": (2, 2), "dilations": (2, 2)},
        {"kernel_shape": (2, 2), "auto_pad": "SAME_UPPER"},
    ):
        model = _model(rng, pool=pool)
        assert _order(model) == kept
        _assert_close(model, rng.standard_normal((2, 4, 7, 6)).astype(np.float32), np.float32)


_AVERAGE = default_registry().lookup("", "AveragePool", 19)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 3), st.integers(1, 5), st.integers(2, 13), st.integers(2, 13)),
    dtype=st.sampled_from([np.float32, np.float64]),
    specials=st.booleans(),
)
def test_pairs_bit_identical_to_the_kernel(
    seed: int, shape: tuple[int, int, int, int], dtype: type, specials: bool
) -> None:
    assert _AVERAGE is not None
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-30, 30, shape)).astype(dtype)
    if specials:
        x.flat[rng.integers(0, x.size, 3)] = [np.inf, -np.inf, np.nan]
        x.flat[rng.integers(0, x.size)] = -0.0
    attributes = {"kernel_shape": (2, 2), "strides": (2, 2)}
    with np.errstate(invalid="ignore"):  # inf + -inf in both
        pairs = _mean_of_pairs(_AVERAGE.fn, has_context=False)(x, **attributes)
        written = _AVERAGE.fn(x, **attributes)
    assert pairs.dtype == written.dtype and pairs.shape == written.shape
    assert pairs.tobytes() == written.tobytes()


def test_pairs_leave_other_inputs_to_the_kernel() -> None:
    assert _AVERAGE is not None
    pairs = _mean_of_pairs(_AVERAGE.fn, has_context=False)
    attributes = {"kernel_shape": (2, 2), "strides": (2, 2)}
    for x in (
        np.arange(2 * 3 * 4 * 4, dtype=np.float16).reshape(2, 3, 4, 4),
        np.zeros((0, 3, 4, 4), np.float32),
        np.ones((1, 2, 1, 5), np.float32),
    ):
        assert pairs(x, **attributes).tobytes() == _AVERAGE.fn(x, **attributes).tobytes()


def test_densenet_transition() -> None:
    # BatchNormalization -> Relu -> 1x1 Conv -> AveragePool: the clamp, the pool, the Conv.
    rng = np.random.default_rng(2)
    x = oc.arg("X", np.float32, ("N", 8, "H", "W"))
    gamma, var = rng.uniform(0.5, 1.5, 8), rng.uniform(0.5, 1.5, 8)
    beta, mean = rng.uniform(-0.1, 0.1, 8), rng.uniform(-0.1, 0.1, 8)
    statistics = [v.astype(np.float32) for v in (gamma, beta, mean, var)]
    clamped = op.Relu(op.BatchNormalization(x, *statistics).Y)
    w = rng.standard_normal((4, 8, 1, 1)).astype(np.float32)
    y = op.AveragePool(op.Conv(clamped, w), kernel_shape=(2, 2), strides=(2, 2))
    model = oc.build([x], {"Y": y})
    assert _order(model) == ["BatchNormalization", "AveragePool", "Conv"]
    _assert_close(model, rng.standard_normal((2, 8, 8, 8)).astype(np.float32), np.float32)
