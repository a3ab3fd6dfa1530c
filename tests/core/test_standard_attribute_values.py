"""The standard specs' allowed values and axis bounds, acting on the misuses a user meets.

Each misuse fails at the operator call (an OpAttributeError naming the operator, the attribute,
the allowed values or range and the value given) and in ``oc.check`` for the same model written
by other means; onnxruntime, the oracle, refuses each such model when it loads it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.io import model_proto
from onnxcraft.opset.ai.onnx import v17
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.opset.ai.onnx.ml import v5 as ml

F32 = np.float32


@dataclass(frozen=True)
class Misuse:
    name: str
    call: Callable[[], Any]  # the DSL call that must fail
    text: str  # the same node in a model from elsewhere (ONNX text syntax)
    fragments: tuple[str, ...]


def _x(rank: int = 2) -> oc.Var:
    return oc.arg("x", F32, (2,) * rank)


MISUSES = [
    Misuse(
        "Softmax axis beyond the rank",
        lambda: op.Softmax(_x(), axis=5),
        "y = Softmax <axis = 5> (x)",
        ("Softmax", "'axis'", "-2 … 1", "got 5"),
    ),
    Misuse(
        "Resize mode that is not a mode",
        lambda: op.Resize(_x(), None, np.array([1, 2], F32), mode="bilinear"),
        'y = Resize <mode = "bilinear"> (x, "", s)',
        ("Resize", "'mode'", "'nearest', 'linear', 'cubic'", "got 'bilinear'"),
    ),
    Misuse(
        "Conv auto_pad misspelled",
        lambda: op.Conv(
            oc.arg("x", F32, (1, 1, 4, 4)), np.ones((1, 1, 3, 3), F32), auto_pad="SAME"
        ),
        'y = Conv <auto_pad = "SAME"> (x, w)',
        ("Conv", "'auto_pad'", "'NOTSET'", "got 'SAME'"),
    ),
    Misuse(
        "Concat axis below the rank",
        lambda: op.Concat(_x(), _x(), axis=-3),
        "y = Concat <axis = -3> (x, x)",
        ("Concat", "'axis'", "-2 … 1", "got -3"),
    ),
    Misuse(
        "ReduceMean axes beyond the rank (an attribute at opset 17)",
        lambda: v17.ReduceMean(_x(), axes=[0, 2]),
        "y = ReduceMean <axes = [0, 2]> (x)",
        ("ReduceMean", "'axes'", "-2 … 1", "got 2"),
    ),
]

_GRAPH_INPUTS = {
    "Conv": "float[1, 1, 4, 4] x, float[1, 1, 3, 3] w",
    "Resize": "float[2, 2] x, float[2] s",
}


def _model_text(misuse: Misuse) -> str:
    op_type = misuse.text.split("=", 1)[1].split()[0]
    opset = 17 if op_type == "ReduceMean" else 21
    inputs = _GRAPH_INPUTS.get(op_type, "float[2, 2] x")
    return (
        f'<ir_version: 10, opset_import: ["" : {opset}]>\n'
        f"g ({inputs}) => (float[] y) {{\n    {misuse.text}\n}}\n"
    )


@pytest.mark.parametrize("misuse", MISUSES, ids=[m.name for m in MISUSES])
def test_the_call_is_refused(misuse: Misuse) -> None:
    with pytest.raises(oc.OpAttributeError) as caught:
        misuse.call()
    missing = [f for f in misuse.fragments if f not in str(caught.value)]
    assert not missing, f"{missing} not in: {caught.value}"


@pytest.mark.parametrize("misuse", MISUSES, ids=[m.name for m in MISUSES])
def test_check_reports_the_model_from_elsewhere(misuse: Misuse) -> None:
    model = oc.parse(_model_text(misuse))
    with pytest.raises(oc.ValidationError) as caught:
        oc.check(model)
    missing = [f for f in misuse.fragments if f not in str(caught.value)]
    assert not missing, f"{missing} not in: {caught.value}"


@pytest.mark.parametrize("misuse", MISUSES, ids=[m.name for m in MISUSES])
def test_onnxruntime_refuses_the_same_model(misuse: Misuse) -> None:
    ort = pytest.importorskip("onnxruntime")
    data = model_proto(oc.parse(_model_text(misuse))).SerializeToString()
    options = ort.SessionOptions()
    options.log_severity_level = 4
    with pytest.raises(Exception):  # any refusal of onnxruntime's
        session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        feeds = {i.name: np.ones([d or 1 for d in i.shape], F32) for i in session.get_inputs()}
        session.run(None, feeds)


def test_tree_ensemble_codes_are_checked() -> None:
    x = oc.arg("x", F32, (1, 1))
    with pytest.raises(oc.OpAttributeError, match=r"'aggregate_function' must be one of"):
        ml.TreeEnsemble(
            x,
            aggregate_function=7,
            leaf_targetids=[0],
            leaf_weights=np.array([1.0], F32),
            nodes_falseleafs=[1],
            nodes_falsenodeids=[0],
            nodes_featureids=[0],
            nodes_modes=np.array([0], np.uint8),
            nodes_splits=np.array([0.5], F32),
            nodes_trueleafs=[1],
            nodes_truenodeids=[0],
            n_targets=1,
            tree_roots=[0],
        )
