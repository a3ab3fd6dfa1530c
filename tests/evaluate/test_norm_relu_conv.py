"""A standing BatchNormalization -> Relu -> Conv run as one clamp and a Conv with scaled
weights (``onnxcraft.evaluate.norm_relu_conv``, ``fuse=True``), against the nodes as written
(``fuse=False``)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper, numpy_helper

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op

# The fusion's bound (tests/evaluate/test_fusion.py): float32 rounding of a dot product,
# relative to its magnitude.
RELATIVE = {np.float32: 1e-5, np.float64: 1e-13}


def _statistics(
    rng: np.random.Generator, channels: int, dtype: type, scale: tuple[float, float]
) -> list[np.ndarray]:
    gamma = rng.uniform(*scale, channels)
    beta, mean = rng.uniform(-1.5, 1.5, channels), rng.uniform(-1.5, 1.5, channels)
    var = rng.uniform(0.05, 2.0, channels)
    return [v.astype(dtype) for v in (gamma, beta, mean, var)]


def _model(
    rng: np.random.Generator,
    *,
    channels: int = 5,
    out_channels: int = 4,
    kernel: int = 1,
    stride: int = 1,
    pad: int = 0,
    group: int = 1,
    bias: bool = True,
    dtype: type = np.float32,
    scale: tuple[float, float] = (0.2, 1.5),
    relu_kept: bool = False,
) -> object:
    x = oc.arg("X", dtype, ("N", channels, "H", "W"))
    normed = op.BatchNormalization(x, *_statistics(rng, channels, dtype, scale), epsilon=1e-3).Y
    clamped = op.Relu(normed)
    w = rng.standard_normal((out_channels, channels // group, kernel, kernel)).astype(dtype)
    b = rng.standard_normal(out_channels).astype(dtype) if bias else None
    y = op.Conv(clamped, w, b, strides=(stride, stride), pads=(pad,) * 4, group=group)
    outputs = {"Y": y, "R": clamped} if relu_kept else {"Y": y}
    return oc.build([x], outputs)


def _rewritten(model: object) -> bool:
    # The scaled weights join the plan's constants (the prepared Conv holds them).
    return any(name.startswith("\0scaled weight") for name in oc.Evaluator(model)._plan.constants)


def _assert_close(model: object, feed: np.ndarray, dtype: type) -> None:
    fused = oc.evaluate(model, {"X": feed})["Y"]
    written = oc.evaluate(model, {"X": feed}, fuse=False)["Y"]
    assert fused.dtype == written.dtype and fused.shape == written.shape
    scale = float(np.abs(written).max(initial=0.0)) + 1.0
    assert float(np.abs(fused - written).max(initial=0.0)) <= RELATIVE[dtype] * scale


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    channels=st.integers(1, 9),
    out_channels=st.integers(1, 6),
    kernel=st.sampled_from([1, 2, 3]),
    stride=st.sampled_from([1, 2]),
    bias=st.booleans(),
    dtype=st.sampled_from([np.float32, np.float64]),
    batch=st.integers(1, 3),
    size=st.tuples(st.integers(3, 9), st.integers(3, 9)),
    shift=st.floats(-4.0, 4.0),
)
def test_within_rounding_of_as_written(
    seed: int,
    channels: int,
    out_channels: int,
    kernel: int,
    stride: int,
    bias: bool,
    dtype: type,
    batch: int,
    size: tuple[int, int],
    shift: float,
) -> None:
    rng = np.random.default_rng(seed)
    model = _model(
        rng,
        channels=channels,
        out_channels=out_channels,
        kernel=kernel,
        stride=stride,
        bias=bias,
        dtype=dtype,
    )
    assert _rewritten(model)
    steps = [step.node.op_type for step in oc.Evaluator(model)._plan.steps]
    assert steps == ["BatchNormalization", "Conv"]  # the Relu is the clamp's
    # Inputs around the bounds (shifted so that most, or few, channels are clamped).
    feed = (rng.standard_normal((batch, channels, *size)) + shift).astype(dtype)
    _assert_close(model, feed, dtype)


def test_every_channel_clamped_gives_the_bias() -> None:
    rng = np.random.default_rng(3)
    model = _model(rng, channels=64, out_channels=8)
    feed = np.full((1, 64, 4, 4), -1e6, np.float32)  # far below every bound: the Relu's 0
    _assert_close(model, feed, np.float32)


def test_infinities_and_nan_as_written() -> None:
    rng = np.random.default_rng(4)
    model = _model(rng, channels=3, out_channels=4)
    feed = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    feed[0, 0, 0, 0], feed[0, 1, 2, 2], feed[1, 2, 4, 4] = np.inf, -np.inf, np.nan
    feed[1, 0, 1, 1] = -np.inf
    fused = oc.evaluate(model, {"X": feed})["Y"]
    written = oc.evaluate(model, {"X": feed}, fuse=False)["Y"]
    assert np.array_equal(np.isnan(fused), np.isnan(written))
    assert np.array_equal(np.isposinf(fused), np.isposinf(written))
    assert np.array_equal(np.isneginf(fused), np.isneginf(written))
    finite = np.isfinite(written)
    scale = float(np.abs(written[finite]).max()) + 1.0
    assert float(np.abs(fused[finite] - written[finite]).max()) <= 1e-5 * scale


def test_input_of_another_type_runs_the_written_nodes_first() -> None:
    # Statistics and weights in float32, the input in float64: a Conv the spec would refuse
    # (onnxcraft's builder too, so onnx.helper writes it), which the evaluator runs as numpy
    # does. The written values, up to the float32 scaled weights.
    rng = np.random.default_rng(5)
    arrays = [*_statistics(rng, 4, np.float32, (0.2, 1.5)), rng.standard_normal((3, 4, 1, 1))]
    names = ["scale", "beta", "mean", "var", "w"]
    graph = helper.make_graph(
        [
            helper.make_node("BatchNormalization", ["X", *names[:4]], ["n"], epsilon=1e-3),
            helper.make_node("Relu", ["n"], ["r"]),
            helper.make_node("Conv", ["r", "w"], ["Y"]),
        ],
        "ill_typed",
        [helper.make_tensor_value_info("X", 11, [2, 4, 6, 6])],  # 11: double
        [helper.make_tensor_value_info("Y", 11, None)],
        [numpy_helper.from_array(a.astype(np.float32), n) for a, n in zip(arrays, names)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    assert _rewritten(model)
    feed = rng.standard_normal((2, 4, 6, 6))
    fused = oc.evaluate(model, {"X": feed})["Y"]
    written = oc.evaluate(model, {"X": feed}, fuse=False)["Y"]
    assert fused.dtype == written.dtype == np.float64
    assert float(np.abs(fused - written).max()) <= 1e-5 * (float(np.abs(written).max()) + 1.0)


def test_left_as_written() -> None:
    rng = np.random.default_rng(6)
    assert not _rewritten(_model(rng, scale=(-1.5, -0.2)))  # negative factors
    assert not _rewritten(_model(rng, scale=(0.0, 0.0)))  # zero factors
    assert not _rewritten(_model(rng, kernel=3, pad=1))  # a padded zero would lose its c
    assert not _rewritten(_model(rng, channels=4, group=2))
    assert not _rewritten(_model(rng, relu_kept=True))  # the Relu's output must be produced
    for scale in [(-1.5, -0.2), (0.0, 0.0)]:
        model = _model(rng, scale=scale, channels=3)
        _assert_close(model, rng.standard_normal((1, 3, 4, 4)).astype(np.float32), np.float32)
