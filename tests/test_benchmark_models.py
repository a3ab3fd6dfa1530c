"""The benchmarks' models and their fairness kit do what the benchmarks claim.

The models of ``tests/benchmarks/zoo.py`` are valid (``oc.check(full_check=True)``), have the
published networks' sizes, and onnxcraft computes what onnxruntime computes on them, so a
timing table compares the same work. ``fair.race`` warms every contender up and alternates.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc

sys.path.insert(0, str(Path(__file__).resolve().parent / "benchmarks"))

import fair
import zoo

# Parameters of the published networks (classifier of 1000 classes), in millions.
PARAMETERS = {
    "resnet50": 25.6,
    "densenet121": 8.0,
    "inception": 7.0,
    "squeezenet": 1.2,
    "shufflenet": 2.3,
}


def _parameters(model: Any) -> float:
    return sum(int(np.prod(t.dims)) for t in model.graph.initializer) / 1e6


@pytest.mark.parametrize("name", [*zoo.CNNS, "transformer"])
def test_each_model_is_valid_and_runs_as_onnxruntime_runs_it(name: str) -> None:
    # Two encoder layers stand for twelve: the same operators, a sixth of the weights.
    model = zoo.transformer(1, layers=2) if name == "transformer" else zoo.MODELS[name](1)
    oc.check(model, full_check=True)
    if name in PARAMETERS:
        assert _parameters(model) == pytest.approx(PARAMETERS[name], rel=0.08)
    feeds = zoo.feeds_for(model)
    ours = oc.evaluate(model, feeds)
    theirs = fair.ort_session(model.SerializeToString()).run(None, feeds)
    for output, expected in zip(model.graph.output, theirs):
        got = ours[output.name]
        assert got.shape == expected.shape
        scale = float(np.max(np.abs(expected)))
        np.testing.assert_allclose(got, expected, atol=1e-4 * scale, rtol=0)


@pytest.mark.parametrize("name", ["resnet50", "densenet121", "shufflenet"])
def test_batches_of_two_run_as_onnxruntime_runs_them(name: str) -> None:
    """With several images, the last stages' 7x7 convolutions take the batch's images side by
    side in one product (``ops/conv/prepared.py``): the same outputs as onnxruntime's."""
    model = zoo.MODELS[name](2)
    feeds = zoo.feeds_for(model)
    ours = oc.evaluate(model, feeds)
    theirs = fair.ort_session(model.SerializeToString()).run(None, feeds)
    for output, expected in zip(model.graph.output, theirs):
        scale = float(np.max(np.abs(expected)))
        np.testing.assert_allclose(ours[output.name], expected, atol=1e-4 * scale, rtol=0)


def test_race_warms_up_every_contender_and_alternates() -> None:
    calls: list[str] = []
    timings = fair.race({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 5)
    assert calls[:2] == ["a", "b"]  # one warm-up each, not timed
    rounds = [calls[i : i + 2] for i in range(2, len(calls), 2)]
    assert rounds == [["a", "b"], ["b", "a"], ["a", "b"], ["b", "a"], ["a", "b"]]
    assert all(len(t.runs) == 5 for t in timings.values())
    assert timings["a"].best <= timings["a"].median
