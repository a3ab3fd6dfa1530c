"""BatchNormalization folded into the Conv before it (``fuse=True``, the default) and the
``fuse=False`` switch that runs every node as written."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft import ops
from onnxcraft.errors import EvaluationError
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.opset.ai.onnx import v21 as op

# Folding rounds the weights instead of the Conv's sums: the outputs may move by float32
# rounding of a dot product, relative to its magnitude (much tighter than the node tests'
# rtol=1e-3).
RELATIVE = 1e-5


def _statistics(
    rng: np.random.Generator, channels: int, dtype: type = np.float32
) -> list[np.ndarray]:
    scale, bias, mean = (rng.uniform(-1.5, 1.5, channels) for _ in range(3))
    var = rng.uniform(0.05, 2.0, channels)
    return [v.astype(dtype) for v in (scale, bias, mean, var)]


def _conv_bn(
    rng: np.random.Generator,
    *,
    channels: int = 6,
    group: int = 1,
    stride: int = 1,
    pad: int = 1,
    bias: bool = True,
    dtype: type = np.float32,
) -> tuple[oc.Var, oc.Var, oc.Var]:
    """(X, the Conv's output, the BatchNormalization's output)."""
    c_in = 2 * group
    x = oc.arg("X", dtype, (2, c_in, 9, 9))
    w = rng.standard_normal((channels, c_in // group, 3, 3)).astype(dtype)
    b = rng.standard_normal(channels).astype(dtype) if bias else None
    y = op.Conv(x, w, b, pads=(pad,) * 4, strides=(stride, stride), group=group)
    return x, y, op.BatchNormalization(y, *_statistics(rng, channels, dtype), epsilon=1e-3).Y


def _steps(model: object, *, fuse: bool = True) -> list[str]:
    return [step.node.op_type for step in oc.Evaluator(model, fuse=fuse)._plan.steps]


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    group=st.sampled_from([1, 2]),
    stride=st.sampled_from([1, 2]),
    pad=st.sampled_from([0, 1]),
    bias=st.booleans(),
    dtype=st.sampled_from([np.float32, np.float64]),
)
def test_fused_within_rounding_of_as_written(
    seed: int, group: int, stride: int, pad: int, bias: bool, dtype: type
) -> None:
    rng = np.random.default_rng(seed)
    x, _, y = _conv_bn(rng, group=group, stride=stride, pad=pad, bias=bias, dtype=dtype)
    model = oc.build([x], {"Y": op.Relu(y)})
    assert _steps(model) == ["Conv"]  # the statistics folded, the Relu clamping in place
    assert _steps(model, fuse=False) == ["Conv", "BatchNormalization", "Relu"]
    feed = rng.standard_normal((2, 2 * group, 9, 9)).astype(dtype)
    fused = oc.evaluate(model, {"X": feed})["Y"]
    written = oc.evaluate(model, {"X": feed}, fuse=False)["Y"]
    assert fused.dtype == written.dtype == dtype
    scale = float(np.abs(written).max()) + 1.0
    limit = RELATIVE if dtype == np.float32 else 1e-13
    assert float(np.abs(fused - written).max()) <= limit * scale


def test_intermediates_are_the_nodes_as_written() -> None:
    rng = np.random.default_rng(1)
    x, _, y = _conv_bn(rng)
    model = oc.build([x], {"Y": y})
    feed = rng.standard_normal((2, 2, 9, 9)).astype(np.float32)
    evaluator = oc.Evaluator(model)
    every = evaluator.run({"X": feed}, intermediates=True)
    written = oc.evaluate(model, {"X": feed}, fuse=False, intermediates=True)
    assert sorted(every) == sorted(written)
    for name, value in written.items():
        np.testing.assert_array_equal(every[name], value)
    # and the fused plan is still the one plain runs use
    assert _steps(model) == ["Conv"]


def _unfused(model: object) -> bool:
    return "BatchNormalization" in _steps(model)


def test_conv_output_read_elsewhere_is_not_fused() -> None:
    rng = np.random.default_rng(2)
    x, conv, y = _conv_bn(rng)
    assert _unfused(oc.build([x], {"Y": y, "conv": conv}))  # a graph output
    assert _unfused(oc.build([x], {"Y": op.Add(y, conv)}))  # a second reader


def test_training_mode_is_not_fused() -> None:
    rng = np.random.default_rng(3)
    x = oc.arg("X", np.float32, (2, 2, 9, 9))
    conv = op.Conv(x, rng.standard_normal((6, 2, 3, 3)).astype(np.float32))
    y = op.BatchNormalization(conv, *_statistics(rng, 6), training_mode=1).Y
    assert _unfused(oc.build([x], {"Y": y}))


def test_weights_a_feed_may_replace_are_not_fused() -> None:
    rng = np.random.default_rng(4)
    x = oc.arg("X", np.float32, (2, 2, 9, 9))
    w = oc.arg("W", np.float32, (6, 2, 3, 3))
    y = op.BatchNormalization(op.Conv(x, w), *_statistics(rng, 6)).Y
    assert _unfused(oc.build([x, w], {"Y": y}))


def test_float16_is_not_fused() -> None:
    rng = np.random.default_rng(5)
    x, _, y = _conv_bn(rng, dtype=np.float16)
    assert _unfused(oc.build([x], {"Y": y}))


def test_fuse_must_be_a_bool() -> None:
    rng = np.random.default_rng(6)
    x, _, y = _conv_bn(rng)
    with pytest.raises(EvaluationError, match="fuse must be True or False, got 'no'"):
        oc.Evaluator(oc.build([x], {"Y": y}), fuse="no")  # type: ignore[arg-type]


# -- Relu clamping the array of the node before it, in place --------------------------------------


def test_relu_after_a_fresh_array_is_merged_and_exact() -> None:
    rng = np.random.default_rng(7)
    x = oc.arg("X", np.float32, (2, 2, 9, 9))
    conv = op.Conv(x, rng.standard_normal((6, 2, 3, 3)).astype(np.float32), pads=(1,) * 4)
    shifted = op.Add(conv, rng.standard_normal((6, 1, 1)).astype(np.float32))
    model = oc.build(
        [x], {"Y": op.Relu(op.Conv(op.Relu(shifted), np.ones((3, 6, 1, 1), np.float32)))}
    )
    # each Relu joins the node before it; the Add joins its Conv (ops/conv/prepared.py)
    assert _steps(model) == ["Conv", "Conv"]
    feed = rng.standard_normal((2, 2, 9, 9)).astype(np.float32)
    fused = oc.evaluate(model, {"X": feed})["Y"]
    written = oc.evaluate(model, {"X": feed}, fuse=False)["Y"]
    np.testing.assert_array_equal(fused, written)  # the same values, bit for bit
    assert (fused >= 0).all()


def test_relu_after_a_view_or_a_shared_value_is_not_merged() -> None:
    rng = np.random.default_rng(8)
    x = oc.arg("X", np.float32, (2, 6))
    weight = rng.standard_normal((6, 6)).astype(np.float32)
    product = op.MatMul(x, weight)
    # Reshape and Identity may hand back their input's memory: never clamped in place
    assert _steps(oc.build([x], {"Y": op.Relu(op.Reshape(product, np.array([12])))})) == [
        "MatMul",
        "Reshape",
        "Relu",
    ]
    assert "Relu" in _steps(oc.build([x], {"Y": op.Relu(op.Identity(x))}))
    # a value read twice, or an output of the graph, keeps its own array
    assert "Relu" in _steps(oc.build([x], {"Y": op.Add(op.Relu(product), product)}))
    assert "Relu" in _steps(oc.build([x], {"Y": op.Relu(product), "P": product}))
    feed = rng.standard_normal((2, 6)).astype(np.float32)
    kept = feed.copy()
    outputs = oc.evaluate(oc.build([x], {"Y": op.Relu(op.Identity(x))}), {"X": feed})
    np.testing.assert_array_equal(feed, kept)  # the caller's array is untouched
    np.testing.assert_array_equal(outputs["Y"], np.maximum(kept, 0))


def test_relu_merge_keeps_integer_and_low_precision_results() -> None:
    x = oc.arg("X", np.int32, (5,))
    model = oc.build([x], {"Y": op.Relu(op.Add(x, np.int32(-2)))})
    assert _steps(model) == ["Add"]
    got = oc.evaluate(model, {"X": np.arange(5, dtype=np.int32)})["Y"]
    assert got.dtype == np.int32 and list(got) == [0, 0, 0, 1, 2]
    h = oc.arg("H", np.float16, (4,))
    half = oc.build([h], {"Y": op.Relu(op.Mul(h, np.float16(-1.5)))})
    feed = np.array([1, -2, 0.5, -0.25], np.float16)
    np.testing.assert_array_equal(
        oc.evaluate(half, {"H": feed})["Y"], oc.evaluate(half, {"H": feed}, fuse=False)["Y"]
    )


def test_relu_after_a_kernel_of_the_callers_registry_is_not_merged() -> None:
    """A kernel of one's own may hand back its input (here Mul by one): the Relu after it
    must not clamp the caller's array."""
    registry = KernelRegistry()
    ops.load("kernels", registry)
    own = KernelRegistry()
    for key in registry:
        entry = registry.lookup(*key)
        assert entry is not None
        fn = entry.fn
        if entry.op_type == "Mul":

            def fn(a: np.ndarray, b: np.ndarray) -> np.ndarray:
                return a if np.all(b == 1) else np.multiply(a, b)

        own.add(entry.op_type, fn, since=key[2], domain=entry.domain, context=entry.context)
    x = oc.arg("X", np.float32, (4,))
    model = oc.build([x], {"Y": op.Relu(op.Mul(x, np.float32(1)))})
    evaluator = oc.Evaluator(model, kernels=own)
    assert [step.node.op_type for step in evaluator._plan.steps] == ["Mul", "Relu"]
    feed = np.array([1, -2, 3, -4], np.float32)
    np.testing.assert_array_equal(evaluator.run({"X": feed})["Y"], [1, 0, 3, 0])
    np.testing.assert_array_equal(feed, [1, -2, 3, -4])  # the caller's array is untouched
