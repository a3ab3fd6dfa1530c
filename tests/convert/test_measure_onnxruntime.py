"""The onnxruntime measurement of downgraded models (``measure_onnxruntime.py``) on two cases,
so that the script and its verdicts stay in working order; the full run is the script."""

from __future__ import annotations

import pytest

from onnxcraft.testing.conformance.onnxruntime_backend import OnnxruntimeBackend, runtime_profile
from onnxcraft.testing.conformance.worker import Worker
from tests.convert.measure_onnxruntime import Tally, kernel_ranges, refusal_cause, run_case

pytest.importorskip("onnxruntime")


def test_softmax_axis_downgrades_agree_in_onnxruntime_and_onnx_s_are_blamed() -> None:
    """Softmax's axis changed meaning at 13: ours agree in onnxruntime at every older target;
    onnx's converter keeps the axis, so its models disagree and the evaluator confirms it is
    the conversion's fault."""
    tally = Tally()
    with Worker(OnnxruntimeBackend()) as worker:
        newest = runtime_profile().opsets[""]
        run_case("test_softmax_axis_0", worker, newest, kernel_ranges(), tally)
    ours, onnx = tally.counts["onnxcraft"], tally.counts["onnx"]
    assert ours["pairs in range"] == 6  # targets 7..12 below the case's opset 13
    assert ours["ran and agreed"] == ours["converted"] == 6
    assert onnx["disagreed: the conversion"] == onnx["converted"] == 6
    assert {d["target"] for d in tally.disagreements["onnx"]} == set(range(7, 13))


def test_refusals_are_sorted_by_cause() -> None:
    ranges = {"Add": [(7, 12), (13, 13), (14, 14)]}
    message = "NOT_IMPLEMENTED : Could not find an implementation for {}({}) node with name ''"
    assert refusal_cause(message.format("Add", 14), ranges) == "type not supported"
    assert refusal_cause(message.format("Swish", 24), ranges) == "no kernel at that opset"
    assert refusal_cause("INVALID_GRAPH : Unrecognized attribute: dilations", ranges) == "other"
