"""``oc.infer_shapes`` on whole models.

Every node test case: the model has its declared output types removed, is run through
``oc.infer_shapes``, and every inferred output type is compared with the expected output value:
element type, rank and every static dim must agree where inferred. Unknown is allowed; wrong is
not. Then the contract of ``infer_shapes`` itself: a new model, typed outputs and intermediates,
strict errors and lenient warnings naming the node, subgraphs (If merges its branches; Loop
carried values widen so the body holds for every iteration) and model-local functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto as onnx_tp

import onnxcraft as oc
from onnxcraft.infer.model import InferenceWarning
from onnxcraft.proto import TypeProto
from onnxcraft.proto.serde import model_from_proto
from onnxcraft.types import Tensor
from tests.core.oracle import run_ort
from tests.infer._shape_oracle import contradiction as _contradiction
from tests.node_cases import case_names, load_case


@pytest.mark.parametrize("name", case_names())
def test_inferred_types_never_contradict_expected_outputs(name: str) -> None:
    case = load_case(name)
    model = type(case.model)()
    model.CopyFrom(case.model)
    for output in model.graph.output:
        output.type.CopyFrom(TypeProto())  # forget what the model declares
    inferred = model_from_proto(oc.infer_shapes(model))
    for info in inferred.graph.outputs:
        problem = _contradiction(info.name, info.type, case.outputs[info.name])
        assert problem is None, problem


# -- the contract of oc.infer_shapes on whole models ----------------------------------------------

F = onnx_tp.FLOAT
I = onnx_tp.INT64


def _model(graph: onnx.GraphProto, **kwargs: Any) -> Any:
    kwargs.setdefault("opset_imports", [onnx.helper.make_opsetid("", 21)])
    model = onnx.helper.make_model(graph, **kwargs)
    return oc.proto.ModelProto.FromString(model.SerializeToString())


def _types(model: Any) -> dict[str, Any]:
    graph = model_from_proto(model).graph
    return {v.name: v.type for v in [*graph.value_info, *graph.outputs]}


def _chain(declared_out: Any = None) -> Any:
    nodes = [
        onnx.helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
        onnx.helper.make_node("MatMul", ["t", "w"], ["y"]),
    ]
    w = onnx.numpy_helper.from_array(np.ones((2, 5), np.float32), "w")
    out = declared_out or onnx.helper.make_value_info("y", onnx.TypeProto())
    graph = onnx.helper.make_graph(
        nodes, "g", [onnx.helper.make_tensor_value_info("x", F, ["N", 3])], [out], [w]
    )
    return _model(graph)


def test_infer_shapes_returns_a_new_typed_model() -> None:
    model = _chain()
    before = model.SerializeToString()
    inferred = oc.infer_shapes(model)
    assert model.SerializeToString() == before  # the argument is left as it was
    types = _types(inferred)
    assert types["t"] == Tensor(np.float32, (3, "N"))  # value_info for the intermediate
    assert types["y"] == Tensor(np.float32, (3, 5))  # every graph output typed


def test_strict_raises_on_a_contradiction_and_lenient_warns_naming_the_node() -> None:
    wrong = onnx.helper.make_tensor_value_info("y", F, [3, 4])  # MatMul gives [3, 5]
    model = _chain(wrong)
    with pytest.raises(oc.InferenceError, match=r"MatMul.*declared tensor\(float\)\[3, 4\]"):
        oc.infer_shapes(model, strict=True)
    with pytest.warns(InferenceWarning, match="MatMul"):
        inferred = oc.infer_shapes(model)
    assert _types(inferred)["y"] == Tensor(np.float32, (3, 4))  # the declaration is kept


def test_a_node_whose_inputs_do_not_fit_is_reported() -> None:
    node = onnx.helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")
    graph = onnx.helper.make_graph(
        [node],
        "g",
        [
            onnx.helper.make_tensor_value_info("a", F, [2, 3]),
            onnx.helper.make_tensor_value_info("b", F, [4, 5]),
        ],
        [onnx.helper.make_value_info("y", onnx.TypeProto())],
    )
    model = _model(graph)
    with pytest.raises(oc.InferenceError, match=r"node 'mm' \(MatMul\).*inner dimensions"):
        oc.infer_shapes(model, strict=True)
    with pytest.warns(InferenceWarning, match="node 'mm'"):
        oc.infer_shapes(model)


def _if_model() -> Any:
    def branch(name: str, width: int) -> onnx.GraphProto:
        const = onnx.helper.make_node(
            "Constant",
            [],
            [f"{name}_out"],
            value=onnx.numpy_helper.from_array(np.zeros((2, width), np.float32)),
        )
        relu = onnx.helper.make_node("Relu", [f"{name}_out"], [f"{name}_y"])
        return onnx.helper.make_graph(
            [const, relu], name, [], [onnx.helper.make_value_info(f"{name}_y", onnx.TypeProto())]
        )

    node = onnx.helper.make_node(
        "If", ["c"], ["y"], then_branch=branch("then", 3), else_branch=branch("else", 4)
    )
    graph = onnx.helper.make_graph(
        [node],
        "g",
        [onnx.helper.make_tensor_value_info("c", onnx_tp.BOOL, [])],
        [onnx.helper.make_value_info("y", onnx.TypeProto())],
    )
    return _model(graph)


def test_if_merges_its_branches_and_types_their_insides() -> None:
    model = _if_model()
    inferred = oc.infer_shapes(model, strict=True)
    assert _types(inferred)["y"] == Tensor(np.float32, (2, None))
    node = model_from_proto(inferred).graph.nodes[0]
    then_graph = next(a.value for a in node.attributes if a.name == "then_branch")
    assert _types_of(then_graph)["then_out"] == Tensor(np.float32, (2, 3))
    assert _types_of(then_graph)["then_y"] == Tensor(np.float32, (2, 3))
    for cond in (True, False):
        got = run_ort(model, {"c": np.array(cond)})["y"]
        assert _contradiction("y", _types(inferred)["y"], got) is None


def _types_of(graph: Any) -> dict[str, Any]:
    return {v.name: v.type for v in [*graph.value_info, *graph.outputs]}


def _growing_loop() -> Any:
    """A Loop whose carried value gains a row each iteration, and one that keeps its shape."""
    body = onnx.helper.make_graph(
        [
            onnx.helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            onnx.helper.make_node("Concat", ["acc_in", "row"], ["acc_out"], axis=0),
            onnx.helper.make_node("Add", ["sum_in", "row"], ["sum_out"]),
        ],
        "body",
        [
            onnx.helper.make_tensor_value_info("i", I, []),
            onnx.helper.make_tensor_value_info("cond_in", onnx_tp.BOOL, []),
            onnx.helper.make_value_info("acc_in", onnx.TypeProto()),
            onnx.helper.make_value_info("sum_in", onnx.TypeProto()),
        ],
        [
            onnx.helper.make_value_info(n, onnx.TypeProto())
            for n in ("cond_out", "acc_out", "sum_out")
        ],
    )
    node = onnx.helper.make_node("Loop", ["m", "", "acc0", "sum0"], ["acc", "sum"], body=body)
    row = onnx.numpy_helper.from_array(np.ones((1, 3), np.float32), "row")
    graph = onnx.helper.make_graph(
        [node],
        "g",
        [
            onnx.helper.make_tensor_value_info("m", I, []),
            onnx.helper.make_tensor_value_info("acc0", F, [1, 3]),
            onnx.helper.make_tensor_value_info("sum0", F, [1, 3]),
        ],
        [onnx.helper.make_value_info(n, onnx.TypeProto()) for n in ("acc", "sum")],
        [row],
    )
    return _model(graph)


def test_loop_carried_values_widen_and_the_body_holds_for_every_iteration() -> None:
    model = _growing_loop()
    inferred = oc.infer_shapes(model, strict=True)
    types = _types(inferred)
    assert types["acc"] == Tensor(np.float32, (None, 3))  # grows: its length is unknown
    assert types["sum"] == Tensor(np.float32, (1, 3))  # keeps its shape: stays static
    body = next(a.value for a in model_from_proto(inferred).graph.nodes[0].attributes)
    inside = _types_of(body)
    assert inside["acc_out"] == Tensor(np.float32, (None, 3))
    assert {i.name: i.type for i in body.inputs}["acc_in"] == Tensor(np.float32, (None, 3))
    feeds = {"acc0": np.zeros((1, 3), np.float32), "sum0": np.zeros((1, 3), np.float32)}
    for trips in (0, 1, 4):
        got = run_ort(model, {"m": np.array(trips, np.int64), **feeds})
        for name in ("acc", "sum"):
            assert _contradiction(name, types[name], got[name]) is None


def test_function_attribute_references_take_the_calls_values() -> None:
    transpose = onnx.helper.make_node("Transpose", ["x"], ["y"])
    transpose.attribute.append(
        onnx.AttributeProto(name="perm", ref_attr_name="p", type=onnx.AttributeProto.INTS)
    )
    function = onnx.helper.make_function(
        "my.domain",
        "Tr",
        ["x"],
        ["y"],
        [transpose],
        [onnx.helper.make_opsetid("", 21)],
        attributes=["p"],
    )
    call = onnx.helper.make_node("Tr", ["a"], ["b"], domain="my.domain", p=[0, 2, 1])
    graph = onnx.helper.make_graph(
        [call],
        "g",
        [onnx.helper.make_tensor_value_info("a", F, [2, 3, 4])],
        [onnx.helper.make_value_info("b", onnx.TypeProto())],
    )
    model = _model(
        graph,
        functions=[function],
        opset_imports=[onnx.helper.make_opsetid("", 21), onnx.helper.make_opsetid("my.domain", 1)],
    )
    assert _types(oc.infer_shapes(model, strict=True))["b"] == Tensor(np.float32, (2, 4, 3))
