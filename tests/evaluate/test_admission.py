"""What the evaluator refuses before it runs (issue 16).

- Models ``oc.check`` rejects for a rule the result depends on (unknown opset versions, values
  defined twice, attributes of the wrong type, recursive functions ...) are refused with the
  checker's own message; rules that do not change a result (a graph's name, unique node
  names) do not stop evaluation.
- A protobuf message that is not a model (a ValueInfoProto, a GraphProto) is refused, naming
  what was received, where it used to parse as an empty model.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxcraft as oc
from onnxcraft.evaluate.admission import RULES_APPLIED

X = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
Y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
FEEDS = {"x": np.array([-1.0, 2.0], np.float32)}


def model(
    nodes: list[onnx.NodeProto],
    *,
    opset: int = 21,
    outputs: list[onnx.ValueInfoProto] | None = None,
    functions: list[onnx.FunctionProto] | None = None,
    name: str = "g",
    extra_opsets: list[onnx.OperatorSetIdProto] | None = None,
) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, [X], outputs or [Y])
    opsets = [helper.make_opsetid("", opset), *(extra_opsets or [])]
    return helper.make_model(graph, opset_imports=opsets, functions=functions or [], ir_version=10)


def branch(nodes: list[onnx.NodeProto], out: str) -> onnx.GraphProto:
    return helper.make_graph(
        nodes, "branch", [], [helper.make_tensor_value_info(out, TensorProto.FLOAT, [2])]
    )


def function_call_with_extra_outputs() -> onnx.ModelProto:
    body = helper.make_node("Neg", ["a"], ["b"])
    function = helper.make_function(
        "my", "Negate", ["a"], ["b"], [body], [helper.make_opsetid("", 21)]
    )
    call = helper.make_node("Negate", ["x"], ["y", "z"], domain="my")
    return model([call], functions=[function], extra_opsets=[helper.make_opsetid("my", 1)])


def recursive_function() -> onnx.ModelProto:
    body = helper.make_node("Twice", ["a"], ["b"], domain="my")  # calls itself
    function = helper.make_function(
        "my", "Twice", ["a"], ["b"], [body], [helper.make_opsetid("", 21)]
    )
    call = helper.make_node("Twice", ["x"], ["y"], domain="my")
    return model([call], functions=[function], extra_opsets=[helper.make_opsetid("my", 1)])


INVALID = {
    "unknown opset version": (model([helper.make_node("Relu", ["x"], ["y"])], opset=999)),
    "node output defined twice": model(
        [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Neg", ["x"], ["y"])]
    ),
    "node output redefines a graph input": model(
        [helper.make_node("Neg", ["x"], ["x"]), helper.make_node("Relu", ["x"], ["y"])]
    ),
    "branch output shadows an outer value": model(
        [
            helper.make_node("Relu", ["x"], ["r"]),
            helper.make_node(
                "Constant", [], ["c"], value=helper.make_tensor("t", TensorProto.BOOL, [], [1])
            ),
            helper.make_node(
                "If",
                ["c"],
                ["y"],
                then_branch=branch([helper.make_node("Neg", ["x"], ["r"])], "r"),
                else_branch=branch([helper.make_node("Abs", ["x"], ["a"])], "a"),
            ),
        ]
    ),
    "attribute of the wrong type": model(
        [helper.make_node("LeakyRelu", ["x"], ["y"], alpha=2)]  # INT where FLOAT is declared
    ),
    "unknown attribute": model([helper.make_node("Relu", ["x"], ["y"], slope=0.5)]),
    "missing required attribute": model([helper.make_node("Cast", ["x"], ["y"])]),
    "too many inputs": model([helper.make_node("Relu", ["x", "x"], ["y"])]),
    "recursive local function": recursive_function(),
    "local function call with more outputs than the function": function_call_with_extra_outputs(),
    "wrong attribute on an operator run through its function body": model(
        [helper.make_node("Selu", ["x"], ["y"], gamma=2)]  # INT where FLOAT is declared
    ),
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_models_check_rejects_for_a_rule_results_depend_on_are_refused(case: str) -> None:
    bad = INVALID[case]
    with pytest.raises(oc.ValidationError) as checked:
        oc.check(bad)
    with pytest.raises(oc.InvalidModelError) as refused:
        oc.evaluate(bad, FEEDS)
    assert isinstance(refused.value, oc.EvaluationError)  # and a ValidationError
    assert refused.value.problems  # every one is the checker's, word for word
    assert set(refused.value.problems) <= set(checked.value.problems)
    assert all(any(f"[{rule}]" in p for rule in RULES_APPLIED) for p in refused.value.problems)


def test_duplicate_outputs_name_the_node_and_the_value() -> None:
    with pytest.raises(oc.InvalidModelError) as refused:
        oc.Evaluator(INVALID["node output defined twice"])
    message = str(refused.value)
    assert "graph node 1 (Neg): [ssa] value 'y' is defined more than once" in message


def test_rules_results_do_not_depend_on_leave_evaluation_alone() -> None:
    """An unnamed graph and two nodes of one name: check rejects, evaluate runs."""
    nodes = [
        helper.make_node("Neg", ["x"], ["n"], name="same"),
        helper.make_node("Relu", ["n"], ["y"], name="same"),
    ]
    odd = model(nodes, name="")
    with pytest.raises(oc.ValidationError):
        oc.check(odd)
    np.testing.assert_array_equal(oc.evaluate(odd, FEEDS)["y"], [1.0, 0.0])


# -- messages that are not models ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "type_name"),
    [
        (X, "onnx.ValueInfoProto"),
        (helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [X], [Y]), "GraphProto"),
        (helper.make_node("Relu", ["x"], ["y"], domain="com.example"), "onnx.NodeProto"),
        (helper.make_tensor("t", TensorProto.FLOAT, [1], [1.0]), "onnx.TensorProto"),
    ],
)
def test_a_message_that_is_not_a_model_is_refused(message: Any, type_name: str) -> None:
    for entry in (oc.Evaluator, oc.check, oc.infer_shapes):
        with pytest.raises(oc.ProtoError, match=f"expected a ModelProto, got .*{type_name}"):
            entry(message)


def test_bytes_of_another_message_without_a_type_are_refused() -> None:
    class Wrapper:  # not a protobuf message: only its bytes can tell
        def SerializeToString(self) -> bytes:
            return X.SerializeToString()

    with pytest.raises(oc.ProtoError, match="Wrapper whose bytes hold no graph"):
        oc.Evaluator(Wrapper())


def test_every_real_model_is_still_taken() -> None:
    """onnx's and onnxcraft's ModelProto, the empty model, and a model with an empty graph."""
    relu = model([helper.make_node("Relu", ["x"], ["y"])])
    assert oc.Evaluator(relu).run(FEEDS)["y"].tolist() == [0.0, 2.0]
    assert oc.Evaluator(oc.proto.ModelProto.FromString(relu.SerializeToString())).output_names
    assert oc.Evaluator(onnx.ModelProto()).output_names == []
    empty_graph = helper.make_model(helper.make_graph([], "g", [], []))
    assert oc.Evaluator(empty_graph).input_names == []

    class Wrapper:  # a model's bytes behind SerializeToString, as the API promises
        def SerializeToString(self) -> bytes:
            return relu.SerializeToString()

    assert oc.Evaluator(Wrapper()).run(FEEDS)["y"].tolist() == [0.0, 2.0]
