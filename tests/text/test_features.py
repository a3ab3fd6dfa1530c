"""The text form on models holding what the node-test models do not (``feature_models.py``):
every element type, every value type, every attribute kind, sparse tensors, local functions.

``oc.parse(oc.to_text(m, full_tensors=True))`` must equal ``m`` for all of them. The two
interop checks with onnx pass too, except where onnx's printer or parser cannot carry the
feature; those cases are asserted to fail, for the reason given, so the table stays true
(and the reasons are what ``docs/reading-models.md`` lists).
"""

from __future__ import annotations

from collections.abc import Callable

import onnx
import pytest

import onnxcraft as oc
from tests.text import feature_models as f
from tests.text.interop import check

PRINTER, PARSER, ROUND_TRIP = (
    "onnx_printer_to_oc_parse",
    "oc_to_text_to_onnx_parser",
    "oc_round_trip",
)

# model -> (builder, {check: the reason it cannot pass})
FEATURES: dict[str, tuple[Callable[[], onnx.ModelProto], dict[str, str]]] = {
    "every_element_type": (
        f.every_element_type,
        {
            PRINTER: "onnx's printer writes '...' for raw_data of int4, uint4, float4e2m1, "
            "int2, uint2, float6*, complex and string-less types it has no case for",
        },
    ),
    "value_types": (f.value_types, {}),
    "metadata": (f.metadata, {}),
    "attribute_kinds": (f.attribute_kinds, {}),
    "attribute_lists": (
        lambda: f.attribute_kinds(lists=True),
        {PARSER: "onnx's parser drops the items of tensors, graphs and type_protos lists"},
    ),
    "sparse_attributes": (
        lambda: f.attribute_kinds(sparse=True),
        {
            PRINTER: "onnx's printer writes nothing after 'sp: sparse_tensor = '",
            PARSER: "onnx's syntax has no sparse tensor values",
        },
    ),
    "sparse_initializer": (
        f.sparse_initializer,
        {
            PRINTER: "onnx's printer leaves sparse initializers out",
            PARSER: "onnx's syntax has no sparse tensor values",
        },
    ),
    "functions": (lambda: f.functions(False), {}),
    "functions_full": (
        lambda: f.functions(True),
        {
            PRINTER: "onnx's printer leaves out a function's attribute defaults, value_info, "
            "doc_string and overload",
        },
    ),
}


@pytest.mark.parametrize("name", sorted(FEATURES))
@pytest.mark.parametrize("which", [PRINTER, PARSER, ROUND_TRIP])
def test_feature(name: str, which: str) -> None:
    build, cannot = FEATURES[name]
    problem = check(build().SerializeToString(), which)
    if which in cannot:
        assert problem is not None, f"{name} passes {which}: remove it from the table"
    else:
        assert problem is None, problem


def test_elided_tensors_are_marked_and_do_not_parse() -> None:
    model = f.every_element_type()
    text = oc.to_text(model)
    assert "float[4,5] matrix = {... 20 values: min " in text
    assert "float scalar = {2.5}" in text  # small tensors stay in full
    with pytest.raises(oc.TextSyntaxError, match=r"full_tensors=True") as info:
        oc.parse(text)
    assert info.value.found == "elided values '{...'"
    with pytest.raises(onnx.parser.ParseError):
        onnx.parser.parse_model(text)


def test_to_text_of_graphs_functions_and_nodes() -> None:
    model = oc.parse(oc.to_text(f.functions(True)))
    graph_text = oc.to_text(model.graph)
    assert oc.to_text(oc.parse_graph(graph_text)) == graph_text
    assert graph_text.startswith("calls (float[N] X) => (float[N] Y)")
    function = oc.parse_function(oc.to_text(model.functions[0]))
    assert function.attribute_defaults[0].name == "gain"
    assert [n.op_type for n in function.nodes] == ["Constant", "Mul", "LeakyRelu"]
    node = oc.parse_node(oc.to_text(model.graph.nodes[0]))
    assert (node.domain, node.op_type, node.overload) == ("my.fns", "Scaled", "v2")
    assert node.attributes[0].value == pytest.approx(0.2)


def test_str_of_models_is_the_text() -> None:
    import numpy as np

    from onnxcraft.opset.ai.onnx import v21 as op

    X = oc.arg("X", np.float32, ("N", 4))
    Y = op.Relu(op.MatMul(X, np.ones((4, 30), np.float32)))
    built = oc.build(inputs=[X], outputs={"Y": Y})
    built_ir = oc.build_ir(inputs=[X], outputs={"Y": Y})
    assert str(built) == str(built_ir) == oc.to_text(built)
    assert "main_graph (float[N,4] X) => (float[N,30] Y)" in str(built)
    assert "{... 120 values: min 1, max 1, mean 1 ...}" in str(built)
    assert repr(built_ir).startswith("<onnxcraft.ir.Model 'main_graph': 1 inputs, 1 outputs")
    assert str(built_ir.graph.nodes[0]) == "matmul0 = MatMul (X, c0)"


def test_var_repr_shows_name_type_and_producer() -> None:
    import numpy as np

    from onnxcraft.opset.ai.onnx import v21 as op

    X = oc.arg("X", np.float32, ("N", 4))
    assert repr(X) == "Var(X: tensor(float)[N, 4], graph input)"
    hidden = op.Relu(X).named("hidden")
    assert repr(hidden) == "Var(hidden: tensor(float)[N, 4], from Relu)"
    _, indices = op.TopK(X, np.array([2], np.int64), axis=1)
    assert repr(indices) == "Var(tensor(int64)[N, 2], from TopK output 1)"
    assert repr(X + 1.0) == "Var(tensor(float)[N, 4], from Add)"


def test_to_text_takes_any_model(tmp_path: object) -> None:
    model = f.functions(False)
    text = oc.to_text(model)  # onnx's ModelProto
    assert text == oc.to_text(model.SerializeToString()) == oc.to_text(oc.parse(text))
    with pytest.raises(oc.ArgumentError, match="full_tensors must be a bool"):
        oc.to_text(model, full_tensors="yes")  # type: ignore[arg-type]


def test_str_shows_a_model_whose_tensor_data_is_missing() -> None:
    from onnxcraft import ir

    missing = ir.TensorData("w", oc.ElementType.FLOAT, (2,))  # no array, nothing to load
    graph = ir.Graph(name="g", initializers=[missing], outputs=[ir.ValueInfo("w")])
    model = ir.Model(graph, {"": 21}, 10)
    assert "float[2] w = {... values not readable: tensor 'w' has no data ...}" in str(model)
    with pytest.raises(oc.OnnxcraftError, match="cannot read the values of tensor 'w'"):
        oc.to_text(model, full_tensors=True)


def test_str_of_a_model_the_ir_cannot_hold_is_protobufs_text() -> None:
    from onnxcraft.proto import ModelProto

    model = ModelProto()
    value = model.graph.input.add()
    value.name = "x"
    value.type.tensor_type.elem_type = 1
    value.type.tensor_type.shape.dim.add().dim_value = -1  # a dim the IR refuses
    assert "dim_value: -1" in str(model)


def test_to_text_of_graph_function_and_node_messages() -> None:
    model = f.functions(True)
    ours = oc.parse(oc.to_text(model))
    assert oc.to_text(model.graph) == oc.to_text(ours.graph)
    assert oc.to_text(model.functions[0]) == oc.to_text(ours.functions[0])
    assert oc.to_text(model.graph.node[0]) == "Y = my.fns.Scaled:v2 <slope: float = 0.2> (X)"
    from onnxcraft.proto import NodeProto

    node = NodeProto.FromString(model.graph.node[0].SerializeToString())  # onnxcraft's class
    assert oc.to_text(node) == oc.to_text(model.graph.node[0])
