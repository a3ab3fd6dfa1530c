"""``oc.check(full_check=True)``: the rules, then strict type inference (as onnx's full check).

A model can break no structural rule and still not compute: inputs whose shapes do not fit
their operator, a declared type that contradicts what the node produces. The default check
leaves those to inference; the full check reports them as ``[inference]`` problems.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op


def _matmul_model(inner_b: int, declared_rows: int = 2) -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["y"])],
        "g",
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, [inner_b, 4]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [declared_rows, 4])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def test_shapes_that_do_not_multiply_pass_the_rules_and_fail_the_full_check() -> None:
    model = _matmul_model(inner_b=5)
    oc.check(model)  # no structural rule is broken
    with pytest.raises(oc.ValidationError, match=r"\[inference\].*MatMul"):
        oc.check(model, full_check=True)
    with pytest.raises(onnx.shape_inference.InferenceError):  # onnx's full check agrees
        onnx.checker.check_model(model, full_check=True)


def test_a_declared_output_shape_contradicting_the_node_fails_the_full_check() -> None:
    model = _matmul_model(inner_b=3, declared_rows=7)
    oc.check(model)
    with pytest.raises(oc.ValidationError, match=r"\[inference\]"):
        oc.check(model, full_check=True)


def test_a_valid_model_passes_the_full_check_unchanged() -> None:
    model = _matmul_model(inner_b=3)
    before = model.SerializeToString()
    oc.check(model, full_check=True)
    assert model.SerializeToString() == before  # inference ran on a copy


def test_the_full_check_runs_only_when_the_rules_pass() -> None:
    """A structural problem is reported as such, not hidden behind an inference failure."""
    model = _matmul_model(inner_b=5)
    model.graph.node[0].output[0] = "undeclared"
    with pytest.raises(oc.ValidationError) as caught:
        oc.check(model, full_check=True)
    assert "[inference]" not in str(caught.value)


def test_a_dsl_model_passes_the_full_check() -> None:
    x = oc.arg("x", np.float32, ("N", 3))
    model = oc.build([x], {"y": op.Relu(op.MatMul(x, np.ones((3, 2), np.float32)))})
    oc.check(model, full_check=True)


@pytest.mark.parametrize("opset", [1, 9])
def test_flatten_before_version_11_refuses_a_negative_axis(opset: int) -> None:
    graph = helper.make_graph(
        [helper.make_node("Flatten", ["x"], ["y"], axis=-1)],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6, 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = {1: 3, 9: 4}[opset]  # the IR version each opset came with
    with pytest.raises(onnx.shape_inference.InferenceError):
        onnx.checker.check_model(model, full_check=True)
    with pytest.raises(oc.ValidationError, match="negative"):
        oc.check(model, full_check=True)
    with pytest.raises(oc.InferenceError, match="negative"):
        oc.infer_shapes(model, strict=True)
    with pytest.raises(oc.EvaluationError, match="negative"):
        oc.evaluate(model, {"x": np.ones((2, 3, 4), np.float32)})
    model.opset_import[0].version, model.ir_version = 11, 6  # valid from version 11
    oc.check(model, full_check=True)
    assert oc.evaluate(model, {"x": np.ones((2, 3, 4), np.float32)})["y"].shape == (6, 4)


def test_full_check_must_be_a_bool() -> None:
    with pytest.raises(oc.ArgumentError, match="full_check must be a bool, got 'yes'"):
        oc.check(_matmul_model(inner_b=3), full_check="yes")  # type: ignore[arg-type]
