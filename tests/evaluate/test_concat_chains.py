"""Concats growing one list of inputs (DenseNet's blocks) share a buffer (``fuse=True``):
the values are np.concatenate's, bit for bit, every view keeps its values while the chain
goes on, and anything unusual (other arrays, types, shapes, threads) is still right."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.errors import EvaluationError
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.opset.ai.onnx import v21 as op
from tests.evaluate._threads import run_in_threads


def _block(dtype: type, layers: int = 4, axis: int = 1) -> Any:
    """A DenseNet-like block: each layer reads the Concat of every feature before it."""
    X = oc.arg("X", dtype, ("N", 3, 4, 5))
    features = [X]
    for layer in range(layers):
        joined = features[0] if len(features) == 1 else op.Concat(*features, axis=axis)
        features.append(op.Add(op.ReduceSum(joined, np.array([1]), keepdims=1), dtype(layer)))
    return oc.build([X], {"Y": op.Neg(op.Concat(*features, axis=axis))})


def _chained(model: Any) -> list[Any]:
    concat = default_registry().lookup("", "Concat", 13)
    assert concat is not None
    steps = oc.Evaluator(model)._plan.steps
    return [s for s in steps if s.node.op_type == "Concat" and s.fn is not concat.fn]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64])
@pytest.mark.parametrize("batch", [0, 1, 3])
@pytest.mark.parametrize("axis", [1, -3])
def test_block_equals_as_written(dtype: type, batch: int, axis: int) -> None:
    model = _block(dtype, axis=axis)
    assert len(_chained(model)) == 4  # layers 2, 3, 4 and the block's output
    rng = np.random.default_rng(batch)
    x = (rng.standard_normal((batch, 3, 4, 5)) * 4).astype(dtype)
    evaluator = oc.Evaluator(model)
    expected = oc.evaluate(model, {"X": x}, fuse=False)["Y"]
    for _ in range(3):  # the first run grows the buffer, later ones know its size
        got = evaluator.run({"X": x})["Y"]
        assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


def test_views_keep_their_values_and_mismatches_start_over() -> None:
    steps = _chained(_block(np.float32, layers=5))
    rng = np.random.default_rng(0)
    parts = [rng.standard_normal((2, c, 3, 2)).astype(np.float32) for c in (3, 1, 2, 1, 4, 1)]
    runs = [
        (steps[0], parts[:2]),
        (steps[1], parts[:3]),
        (steps[2], parts[:4]),
        (steps[1], [parts[0], parts[2].copy(), parts[1]]),  # other arrays: a new buffer
        (steps[2], parts[:4]),  # not what the buffer holds now: a new buffer again
        (steps[3], parts[:5]),
        (steps[4], parts[:6]),
        (steps[0], [p.astype(np.float64) for p in parts[:2]]),  # another dtype
        (steps[1], [parts[0], parts[1], np.ones((2, 1, 3, 3), np.float32)[:, :, :, :2]]),
    ]
    views = []
    for step, inputs in runs:
        views.append((step.fn(*inputs, axis=1), inputs))
    for view, inputs in views:  # read after every call: no later call changed a view
        expected = np.concatenate(inputs, axis=1)
        assert view.dtype == expected.dtype and np.array_equal(view, expected)


def test_errors_are_the_kernels() -> None:
    steps = _chained(_block(np.float32))
    a, b = np.ones((1, 2, 3, 3), np.float32), np.ones((1, 2, 4, 3), np.float32)
    with pytest.raises(EvaluationError, match="Concat: inputs do not fit together"):
        steps[0].fn(a, b, axis=1)
    with pytest.raises(EvaluationError, match="Concat: axis=7 is out of range"):
        steps[0].fn(a, a, axis=7)


def test_threads_share_nothing() -> None:
    model = _block(np.float32, layers=6)
    evaluator = oc.Evaluator(model)
    rng = np.random.default_rng(5)
    feeds = [rng.standard_normal((2, 3, 4, 5)).astype(np.float32) for _ in range(4)]
    expected = [oc.evaluate(model, {"X": x}, fuse=False)["Y"] for x in feeds]
    failures: list[int] = []

    def work(index: int) -> None:
        for _ in range(20):
            if not np.array_equal(evaluator.run({"X": feeds[index]})["Y"], expected[index]):
                failures.append(index)

    run_in_threads(work, 4)
    assert failures == []


def test_graph_outputs_and_fuse_false_are_left_alone() -> None:
    X = oc.arg("X", np.float32, (1, 2, 3))
    first = op.Concat(X, op.Neg(X), axis=1)
    model = oc.build([X], {"A": first, "B": op.Concat(X, op.Neg(X), op.Abs(X), axis=1)})
    # The two Concats read different Neg nodes: no chain; and "A" is an output anyway.
    assert _chained(model) == []
    block = _block(np.float32)
    concat = default_registry().lookup("", "Concat", 13)
    assert concat is not None
    as_written = oc.Evaluator(block, fuse=False)._plan.steps
    assert all(s.fn is concat.fn for s in as_written if s.node.op_type == "Concat")
