"""The main graph's new value_info entries taken from the order the walk recorded its types
(``infer/graph.py``'s ``_write_main_types``, issue 17) are those ``_write_types`` finds by
visiting every node's outputs.

Drawn models whose names collide on purpose (node outputs named as the graph input, an
initializer, a declared value, a graph output, an earlier node's output, or left empty;
declared types right, wrong or shapeless), read from their bytes and inferred strict or not:
at the end of the walk both functions, given the same graph and types, give the same entries
in the same order and the same types to the graph's inputs, outputs and value_info; and
``oc.infer_shapes`` writes those entries.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

import onnxcraft as oc
from onnxcraft import ir
from onnxcraft.core.refine import refine
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import InferenceError
from onnxcraft.infer import graph as graph_module
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.proto import ModelProto
from onnxcraft.types import Tensor

_NAMES = ["x", "w", "a", "b", "c", "y", ""]


@st.composite
def _models(draw: Any) -> bytes:
    nodes = []
    defined = ["x", "w"]
    for _ in range(draw(st.integers(1, 7))):
        op_type = draw(st.sampled_from(["Relu", "Add", "Identity", "Transpose"]))
        count = 2 if op_type == "Add" else 1
        inputs = [draw(st.sampled_from(defined)) for _ in range(count)]
        output = draw(st.sampled_from(_NAMES))
        nodes.append(helper.make_node(op_type, inputs, [output]))
        if output:
            defined.append(output)
    shapes = {"float": [2, 3], "shapeless": None, "wrong": [5]}
    outputs = [
        helper.make_tensor_value_info(
            name, TensorProto.FLOAT, shapes[draw(st.sampled_from(list(shapes)))]
        )
        for name in draw(st.lists(st.sampled_from(_NAMES[:-1]), max_size=2, unique=True))
    ]
    value_info = [
        helper.make_tensor_value_info(
            name, TensorProto.FLOAT, shapes[draw(st.sampled_from(list(shapes)))]
        )
        for name in draw(st.lists(st.sampled_from(_NAMES[:-1]), max_size=3, unique=True))
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        outputs,
        [helper.make_tensor("w", TensorProto.FLOAT, [2, 3], np.ones(6, np.float32))],
        value_info=value_info,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    return model.SerializeToString()  # type: ignore[no-any-return]


@settings(deadline=None, max_examples=300)
@given(_models(), st.booleans())
def test_main_types_are_write_types(data: bytes, strict: bool) -> None:
    compared = []
    written = graph_module._write_main_types

    def both(
        graph: ir.Graph,
        types: dict[str, Any],
        input_types: list[Any],
        declared: dict[str, Any],
        first_output: int,
        added: list[tuple[str, Any]],
    ) -> None:
        initializers = list(types)[len(graph.inputs) : first_output]  # (no outer, no sparse)
        plain: list[tuple[str, Any]] = []
        graph_module._write_types(graph, dict(types), input_types, initializers, plain)
        kept = [
            (info.name, info.type) for info in [*graph.inputs, *graph.outputs, *graph.value_info]
        ]
        written(graph, types, input_types, declared, first_output, added)
        assert added == plain
        assert [
            (i.name, i.type) for i in [*graph.inputs, *graph.outputs, *graph.value_info]
        ] == kept
        compared.append(added)

    graph_module._write_main_types = both  # type: ignore[assignment]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                result = oc.infer_shapes(data, strict=strict)
            except InferenceError:
                return  # (strict: a contradiction, raised as before)
    finally:
        graph_module._write_main_types = written
    assert len(compared) == 1
    added = [name for name, _ in compared[0]]
    written_names = [info.name for info in result.graph.value_info]
    assert written_names[len(written_names) - len(added) :] == added  # (appended last)


@pytest.mark.parametrize("sparse", [False, True])
def test_a_graph_with_sparse_initializers_takes_the_node_loop(sparse: bool) -> None:
    # (a node output named as a sparse initializer is added by _write_types: kept so)
    x = oc.arg("x", np.float32, (2, 3))
    model = oc.build([x], {"y": op.Relu(x)})
    proto = ModelProto.FromString(model.SerializeToString())
    proto.ir_version = 10  # (onnx's messages below: its model format)
    if sparse:
        values = helper.make_tensor("r", TensorProto.FLOAT, [1], [1.0])
        indices = helper.make_tensor("ri", TensorProto.INT64, [1], [0])
        sparse_tensor = helper.make_sparse_tensor(values, indices, [4])
        proto.graph.sparse_initializer.add().ParseFromString(sparse_tensor.SerializeToString())
        proto.graph.node.add().ParseFromString(
            helper.make_node("Relu", ["x"], ["r"]).SerializeToString()
        )
    result = oc.infer_shapes(proto.SerializeToString())
    assert ("r" in [v.name for v in result.graph.value_info]) is sparse


_ELEMS = st.sampled_from([None, ElementType.FLOAT, ElementType.INT64])
_SHAPES = st.one_of(
    st.none(), st.lists(st.one_of(st.integers(0, 9), st.just("N"), st.none()), max_size=3)
)


@given(_ELEMS, _ELEMS, _SHAPES)
def test_a_shapeless_declared_type_merged_is_refines_answer(
    declared_elem: Any, inferred_elem: Any, shape: Any
) -> None:
    # The walk keeps the inferred type itself where refine would make an equal one.
    declared, inferred = Tensor(declared_elem, None), Tensor(inferred_elem, shape)
    if declared_elem is None or declared_elem == inferred_elem:
        assert refine(declared, inferred, "") == inferred
