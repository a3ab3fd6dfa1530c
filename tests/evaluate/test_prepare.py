"""Preparation (issue 16): linear in the number of nodes, scopes of subgraphs without copies.

``tests/benchmarks/bench_prepare.py`` times it; these tests assert what it does: long chains
prepare and run, a subgraph sees the values of every enclosing graph defined before its node
(and only those), and an inner value shadows an outer one.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxcraft as oc
from onnxcraft.evaluate.plan import NameScope
from onnxcraft.opset.ai.onnx import v21 as op


def test_a_long_identity_chain_prepares_and_runs() -> None:
    x = oc.arg("x", np.float32, (2,))
    y = x
    for _ in range(10_000):
        y = op.Identity(y)
    evaluator = oc.Evaluator(oc.build_ir([x], {"y": y}))
    value = np.array([1.0, -2.0], np.float32)
    np.testing.assert_array_equal(evaluator.run({"x": value})["y"], value)


def test_name_scopes_look_outwards_without_copying() -> None:
    outer_names = {"a"}
    outer = NameScope(outer_names, None)
    inner = NameScope({"b"}, outer)
    assert "a" in inner and "b" in inner and "c" not in inner
    outer_names.add("c")  # a live view: names defined later in the outer graph show up
    assert "c" in inner
    assert "b" not in outer


def _tensor(name: str) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, [1])


def _nested_model(read: str) -> onnx.ModelProto:
    """x -> a; If(c) whose then-branch holds an If whose branch reads ``read``; then b."""
    deepest = helper.make_graph(
        [helper.make_node("Neg", [read], ["n"])], "deep", [], [_tensor("n")]
    )
    middle = helper.make_graph(
        [helper.make_node("If", ["c"], ["m"], then_branch=deepest, else_branch=deepest)],
        "middle",
        [],
        [_tensor("m")],
    )
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node(
            "Constant", [], ["c"], value=helper.make_tensor("t", TensorProto.BOOL, [], [1])
        ),
        helper.make_node("If", ["c"], ["y"], then_branch=middle, else_branch=middle),
        helper.make_node("Abs", ["x"], ["b"]),
    ]
    graph = helper.make_graph(nodes, "g", [_tensor("x")], [_tensor("y"), _tensor("b")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def test_a_subgraph_two_levels_down_reads_an_outer_value() -> None:
    result = oc.evaluate(_nested_model("a"), {"x": np.array([3.0], np.float32)})
    np.testing.assert_array_equal(result["y"], [-3.0])


def test_a_subgraph_cannot_read_a_value_defined_after_its_node() -> None:
    with pytest.raises(oc.EvaluationError, match="'b' is used before it is defined"):
        oc.Evaluator(_nested_model("b"))


def test_an_inner_input_shadows_an_outer_value() -> None:
    """A Loop body's input named like an outer value reads the body's own value."""
    body = helper.make_graph(
        [helper.make_node("Add", ["v", "v"], ["v_out"])],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
            _tensor("v"),
        ],
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, []), _tensor("v_out")],
    )
    nodes = [
        helper.make_node("Relu", ["x"], ["v"]),  # the outer 'v'
        helper.make_node(
            "Constant", [], ["m"], value=helper.make_tensor("m", TensorProto.INT64, [], [3])
        ),
        helper.make_node("Loop", ["m", "", "x"], ["y"], body=body),
    ]
    graph = helper.make_graph(nodes, "g", [_tensor("x")], [_tensor("y"), _tensor("v")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    result = oc.evaluate(model, {"x": np.array([-1.0], np.float32)})
    np.testing.assert_array_equal(result["y"], [-8.0])  # doubled from x, not from relu(x)
