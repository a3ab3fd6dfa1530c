"""Nodes that read only constants run once, when the model is prepared (issue 17).

A ConstantOfShape making a weight, a Constant, a Reshape of an initializer compute the same
value on every run; the evaluator computes them while preparing and keeps the values. These
tests count kernel calls over several runs, and check what must never be folded: random
operators, graph inputs that carry an initializer (a feed may replace it), subgraph bodies
reading values of their enclosing graph.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import onnxcraft as oc
from onnxcraft import ops
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.opset.ai.onnx import v21 as op


def counting_kernels(calls: Counter[str]) -> KernelRegistry:
    """The default kernels, each counting its calls in ``calls``."""
    plain = KernelRegistry()
    ops.load("kernels", plain)
    counted = KernelRegistry()
    for key in plain:
        entry = plain.lookup(*key)
        assert entry is not None

        def wrapped(*args: Any, _fn: Any = entry.fn, _op: str = entry.op_type, **kw: Any) -> Any:
            calls[_op] += 1
            return _fn(*args, **kw)

        counted.add(
            entry.op_type,
            wrapped,
            since=key[2],
            domain=entry.domain,
            context=entry.context,
            prepare=entry.prepare,
        )
    return counted


def test_a_weight_made_from_constants_is_computed_once() -> None:
    x = oc.arg("x", np.float32, (2, 3))
    weight = op.Reshape(
        op.ConstantOfShape(np.array([6], np.int64), value=np.array([0.5], np.float32)),
        np.array([3, 2], np.int64),
    )
    model = oc.build([x], {"y": op.MatMul(x, weight)})
    calls: Counter[str] = Counter()
    evaluator = oc.Evaluator(model, kernels=counting_kernels(calls))
    feeds = {"x": np.ones((2, 3), np.float32)}
    for _ in range(3):
        np.testing.assert_array_equal(evaluator.run(feeds)["y"], np.full((2, 2), 1.5))
    assert calls["ConstantOfShape"] == 1 and calls["Reshape"] == 1
    assert calls["MatMul"] == 3


def test_random_operators_run_every_time() -> None:
    y = op.RandomNormal(shape=[1000], dtype=oc.ElementType.FLOAT)
    x = oc.arg("x", np.float32, (1000,))
    model = oc.build([x], {"y": op.Add(x, y)})
    evaluator = oc.Evaluator(model)
    feeds = {"x": np.zeros(1000, np.float32)}
    assert not np.array_equal(evaluator.run(feeds)["y"], evaluator.run(feeds)["y"])


def test_an_input_with_an_initializer_is_not_a_constant() -> None:
    """IR 3 lets an initializer give a graph input its default: a feed replaces it."""
    graph = helper.make_graph(
        [helper.make_node("Neg", ["a"], ["b"]), helper.make_node("Add", ["b", "x"], ["y"])],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("a", TensorProto.FLOAT, [2]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        initializer=[numpy_helper.from_array(np.array([1, 2], np.float32), "a")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    evaluator = oc.Evaluator(model)
    x = np.zeros(2, np.float32)
    np.testing.assert_array_equal(evaluator.run({"x": x})["y"], [-1, -2])
    a = np.array([10, 20], np.float32)
    np.testing.assert_array_equal(evaluator.run({"x": x, "a": a})["y"], [-10, -20])


def test_a_body_reading_its_enclosing_graph_is_not_folded() -> None:
    x = oc.arg("x", np.float32, (2,))
    (total,) = op.Loop(
        np.array(3, np.int64), None, x, body=lambda i, c, s: [c, op.Add(s, op.Abs(x))]
    )
    model = oc.build([x], {"y": total})
    evaluator = oc.Evaluator(model)
    for value in (1.0, 2.0):
        feeds = {"x": np.full(2, value, np.float32)}
        np.testing.assert_array_equal(evaluator.run(feeds)["y"], np.full(2, 4 * value))


def test_a_constant_too_large_to_hold_is_made_at_run_time_under_the_limits() -> None:
    """A 100 MiB ConstantOfShape is over the folding budget: the run's limit still applies."""
    x = oc.arg("x", np.float32, (1,))
    big = op.ConstantOfShape(np.array([25 * 2**20], np.int64), value=np.array([1.0], np.float32))
    model = oc.build([x], {"y": op.Add(op.ReduceSum(big, keepdims=0), x)})
    evaluator = oc.Evaluator(model)
    limits = oc.Limits(max_value_bytes=2**20)
    try:
        evaluator.run({"x": np.zeros(1, np.float32)}, limits=limits)
    except oc.EvaluationLimitError as exc:
        assert "ConstantOfShape node" in str(exc)
    else:
        raise AssertionError("the run's max_value_bytes did not apply to the large constant")


def test_intermediates_include_folded_values() -> None:
    x = oc.arg("x", np.float32, (2,))
    c = op.Neg(np.array([1, 2], np.float32)).named("negated")
    model = oc.build([x], {"y": op.Add(x, c)})
    values = oc.evaluate(model, {"x": np.zeros(2, np.float32)}, intermediates=True)
    np.testing.assert_array_equal(values["negated"], [-1, -2])
