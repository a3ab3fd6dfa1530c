"""A BatchNormalization left standing (DenseNet's, after a Concat) computes its per-channel
factor and offset when the model is prepared (``fuse=True``): the same values, bit for bit,
as the kernel computing them on every run (``fuse=False``)."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.evaluate.fusion import _FRESH_REWRITES


def _model(opset: int, dtype: type, rank: int, relu: bool, stats_as_input: bool = False) -> Any:
    op = importlib.import_module(f"onnxcraft.opset.ai.onnx.v{opset}")
    rng = np.random.default_rng(opset + rank)
    spatial = (3, 4, 2)[: rank - 2]
    X = oc.arg("X", dtype, ("N", 2, *spatial))
    joined = op.Concat(X, op.Neg(X), axis=1)  # not a Conv: nothing to fold into
    scale, bias, mean = (rng.uniform(-2, 2, 4).astype(dtype) for _ in range(3))
    var = rng.uniform(0.01, 3, 4).astype(dtype)
    inputs = [X]
    if stats_as_input:
        M = oc.arg("M", dtype, (4,))
        inputs.append(M)
        mean = M
    y = op.BatchNormalization(joined, scale, bias, mean, var, epsilon=1e-3)
    y = y if opset < 9 else (y.Y if hasattr(y, "Y") else y)
    if relu:
        y = op.Relu(y)
    return oc.build(inputs, {"Y": y}, opset=opset)


def _bits(values: dict[str, np.ndarray]) -> dict[str, bytes]:
    return {k: v.tobytes() + str(v.dtype).encode() for k, v in values.items()}


@pytest.mark.parametrize("opset", [9, 14, 15, 21])
@pytest.mark.parametrize("rank", [3, 4, 5])
@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("batch", [0, 1, 3])
def test_same_bits_as_the_kernel(opset: int, rank: int, relu: bool, batch: int) -> None:
    model = _model(opset, np.float32, rank, relu)
    steps = oc.Evaluator(model)._plan.steps
    assert any(s.fn in _FRESH_REWRITES for s in steps) or relu  # relu: merged into it
    assert [s.node.op_type for s in steps][-1] == "BatchNormalization"
    rng = np.random.default_rng(batch)
    x = (rng.standard_normal((batch, 2, 3, 4, 2)[:rank]) * 3).astype(np.float32)
    x.reshape(-1)[:2] = (np.nan, -np.inf)[: x.size]
    fused = oc.evaluate(model, {"X": x})
    assert _bits(fused) == _bits(oc.evaluate(model, {"X": x}, fuse=False))


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_other_types_run_the_kernel(dtype: type) -> None:
    model = _model(15, dtype, 4, relu=False)
    assert not any(s.fn in _FRESH_REWRITES for s in oc.Evaluator(model)._plan.steps)
    x = np.random.default_rng(2).standard_normal((2, 2, 3, 4)).astype(dtype)
    assert _bits(oc.evaluate(model, {"X": x})) == _bits(oc.evaluate(model, {"X": x}, fuse=False))


def test_statistics_fed_at_run_time_are_read_at_run_time() -> None:
    model = _model(15, np.float32, 4, relu=False, stats_as_input=True)
    evaluator = oc.Evaluator(model)
    assert not any(s.fn in _FRESH_REWRITES for s in evaluator._plan.steps)
    x = np.ones((1, 2, 3, 4), np.float32)
    first = evaluator.run({"X": x, "M": np.zeros(4, np.float32)})["Y"]
    second = evaluator.run({"X": x, "M": np.ones(4, np.float32)})["Y"]
    assert not np.array_equal(first, second)


def test_an_input_of_other_channels_gets_the_kernels_error() -> None:
    model = _model(15, np.float32, 4, relu=False)
    step = next(s for s in oc.Evaluator(model)._plan.steps if s.fn in _FRESH_REWRITES)
    statistics = [np.ones(4, np.float32)] * 4
    with pytest.raises(Exception, match="BatchNormalization: scale must have shape"):
        step.fn(np.ones((1, 3, 2, 2), np.float32), *statistics, epsilon=1e-3)
