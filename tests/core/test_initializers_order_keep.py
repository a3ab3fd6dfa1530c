"""What to_python needs the DSL to say: initializers as values of their own, nodes in the
order of the code, nodes no output needs, a graph doc string of its own."""

from __future__ import annotations

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.dtypes import ElementType
from onnxcraft.opset.ai.onnx import v21 as op


def test_a_named_initializer_keeps_its_name_and_is_not_merged() -> None:
    x = oc.arg("x", np.float32, (2,))
    a = oc.initializer(np.ones(2, np.float32)).named("a")
    b = oc.initializer(np.ones(2, np.float32)).named("b")
    model = oc.build_ir([x], {"y": op.Add(op.Add(x, a), b)})
    assert [t.name for t in model.graph.initializers] == ["a", "b"]
    assert [n.inputs for n in model.graph.nodes] == [["x", "a"], ["add0", "b"]]


def test_initializer_converts_to_a_dtype_and_refuses_what_is_not_a_tensor() -> None:
    w = oc.initializer([1, 2], np.float16)
    assert w.elem_type == ElementType.FLOAT16 and w.value.dtype == np.float16
    assert oc.initializer(np.int8(3)).elem_type == ElementType.INT8
    with pytest.raises(oc.OpInputError, match="initializer"):
        oc.initializer({"not": "a tensor"})
    with pytest.raises(oc.OpInputError, match="does not fit in uint8"):
        oc.initializer([300], np.uint8)
    with pytest.raises(oc.ArgumentError, match="initializer: dtype"):
        oc.initializer([1], "not a dtype")


def test_an_initializer_named_in_a_body_belongs_to_the_body() -> None:
    x = oc.arg("x", np.float32, (2,))

    def then_branch() -> list[oc.Var]:
        return [op.Add(x, oc.initializer(np.float32(1)).named("one"))]

    (y,) = op.If(op.ReduceSum(x) > 0.0, then_branch=then_branch, else_branch=lambda: [x])
    model = oc.build_ir([x], {"y": y})
    body = next(a.value for a in model.graph.nodes[-1].attributes if a.name == "then_branch")
    assert [t.name for t in body.initializers] == ["one"]
    assert "one" not in [t.name for t in model.graph.initializers]
    oc.check(model)
    assert oc.evaluate(model, {"x": np.ones(2, np.float32)})["y"].tolist() == [2.0, 2.0]


def test_nodes_come_in_the_order_of_the_code() -> None:
    x = oc.arg("x", np.float32, (2,))
    a = op.Relu(x)
    b = op.Neg(x)
    model = oc.build_ir([x], {"y": op.Add(b, a)})  # b is read first, a was called first
    assert [n.op_type for n in model.graph.nodes] == ["Relu", "Neg", "Add"]


def test_keep_builds_nodes_no_output_needs() -> None:
    x = oc.arg("x", np.float32, (2,))
    shape = op.Shape(x)
    model = oc.build_ir([x], {"y": op.Neg(x)}, keep=[shape])
    assert [n.op_type for n in model.graph.nodes] == ["Shape", "Neg"]
    assert [v.name for v in model.graph.outputs] == ["y"]
    oc.check(model)
    with pytest.raises(oc.ArgumentError, match="keep must be a list of Vars"):
        oc.build([x], {"y": op.Neg(x)}, keep=shape)
    with pytest.raises(oc.BuildError, match=r"keep\[0\] must be a Var"):
        oc.build([x], {"y": op.Neg(x)}, keep=[np.ones(2)])


def test_the_graph_may_have_a_doc_string_of_its_own() -> None:
    x = oc.arg("x", np.float32, (2,))
    model = oc.build_ir([x], {"y": op.Neg(x)}, doc_string="model", graph_doc_string="graph")
    assert (model.doc_string, model.graph.doc_string) == ("model", "graph")
    same = oc.build_ir([x], {"y": op.Neg(x)}, doc_string="both")
    assert same.graph.doc_string == "both"
    with pytest.raises(oc.ArgumentError, match="graph_doc_string"):
        oc.build([x], {"y": op.Neg(x)}, graph_doc_string=3)
