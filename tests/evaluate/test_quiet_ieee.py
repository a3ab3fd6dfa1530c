"""A run computes IEEE results quietly: an infinity or NaN a kernel makes (inf - inf, 0 * inf,
an overflow) is the standard's result, not a numpy RuntimeWarning, with or without ``fuse``,
when preparing folds constants too; the caller's own numpy error state is left as it was."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op


def _quietly(model: object, feeds: dict[str, np.ndarray], fuse: bool) -> dict[str, np.ndarray]:
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning would fail the run
        values = oc.Evaluator(model, fuse=fuse).run(feeds)
    assert np.geterr() == before
    return values


@pytest.mark.parametrize("fuse", [True, False])
def test_non_finite_results_without_warnings(fuse: bool) -> None:
    x = oc.arg("X", np.float32, (2, 3))
    w = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, -1.0]], np.float32)
    model = oc.build(
        [x],
        {
            "product": op.MatMul(x, w),  # inf * 0 in a dot product: NaN
            "gelu": op.Gelu(x),
            "softmax": op.Softmax(x, axis=1),  # exp(inf) / sum: NaN
            "square": op.Mul(x, x),  # overflow: inf
        },
    )
    feeds = {"X": np.array([[np.inf, 1.0, -2.0], [3e20, np.nan, 0.5]], np.float32)}
    got = _quietly(model, feeds, fuse)
    x64 = feeds["X"]
    with np.errstate(all="ignore"):
        assert np.isnan(got["product"][0, 0]) and np.isnan(got["product"][1]).all()
        assert got["product"][0, 1] == np.inf
        assert got["gelu"][0, 0] == np.inf and np.isnan(got["gelu"][1, 1])
        assert np.isnan(got["softmax"][0]).all()
        assert np.array_equal(got["square"], x64 * x64, equal_nan=True)


def test_constants_folded_without_warnings() -> None:
    """A node reading only constants runs when the model is prepared, quietly too."""
    x = oc.arg("X", np.float32, (1, 2))
    infinite = np.array([[np.inf, 1.0]], np.float32)
    folded = op.MatMul(infinite, np.array([[0.0, 1.0], [1.0, 0.0]], np.float32))
    model = oc.build([x], {"Y": op.Add(x, folded)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would leave the MatMul to the run
        evaluator = oc.Evaluator(model)
    assert [step.node.op_type for step in evaluator._plan.steps] == ["Add"]
    got = _quietly(model, {"X": np.zeros((1, 2), np.float32)}, True)["Y"]
    assert np.isnan(got[0, 0]) and got[0, 1] == np.inf
