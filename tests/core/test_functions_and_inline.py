"""``@oc.function``, ``oc.custom_op`` and ``oc.inline``.

Functions: attributes of several types passed by reference (ref_attr_name), defaults, nested
calls, calls inside bodies, the FunctionProto and its opset imports. Inline: onnx models with
initializers, model-local functions and subgraphs, and onnxcraft models, inlined twice.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op
from tests.core.oracle import onnx_model, run_ort, verify

F32 = np.float32
FLOAT, BOOL = TensorProto.FLOAT, TensorProto.BOOL


def _pad_and_sum() -> Any:
    @oc.function("my.fn", "PadSum", version=3)
    def pad_sum(
        x: oc.Var, *, alpha: float = 1.0, axes: Any = (0,), mode: str = "constant", k: int = 1
    ) -> tuple[oc.Var, oc.Var]:
        scaled = op.Mul(x, op.CastLike(op.Constant(value_float=alpha), x))
        padded = op.Pad(scaled, op.Constant(value_ints=[1, 1]), mode=mode)
        return op.ReduceSum(padded, op.Constant(value_ints=axes), keepdims=k), scaled

    return pad_sum


def test_function_attributes_of_every_kind_are_references() -> None:
    pad_sum = _pad_and_sum()
    X = oc.arg("X", F32, (4,))
    D = oc.arg("D", np.float64, (4,))
    total, scaled = pad_sum(X, alpha=3.0, axes=[0], mode="reflect", k=0)
    total_default, _ = pad_sum(X)
    total_double, _ = pad_sum(D, alpha=0.5)  # same body for float64: one FunctionProto
    assert total.shape == () and total_default.shape == (1,) and scaled.shape == (4,)
    model = oc.build(
        [X, D], {"total": total, "scaled": scaled, "dflt": total_default, "dbl": total_double}
    )
    proto = onnx_model(model)
    (function,) = proto.functions
    assert (function.domain, function.name) == ("my.fn", "PadSum")
    assert list(function.attribute) == ["alpha", "axes", "mode", "k"]
    refs = {a.name: a.ref_attr_name for n in function.node for a in n.attribute if a.ref_attr_name}
    assert refs == {"value_float": "alpha", "mode": "mode", "value_ints": "axes", "keepdims": "k"}
    assert [(o.domain, o.version) for o in function.opset_import] == [("", 21)]
    assert {(o.domain, o.version) for o in proto.opset_import} == {("", 21), ("my.fn", 3)}
    x = np.array([1, 2, 3, 4], F32)
    verify(
        model,
        {"X": x, "D": x.astype(np.float64)},
        {
            "total": np.pad(3 * x, 1, mode="reflect").sum(),
            "scaled": 3 * x,
            "dflt": np.pad(x, 1).sum(keepdims=True),
            "dbl": np.pad(0.5 * x.astype(np.float64), 1).sum(keepdims=True),
        },
    )


def test_functions_calling_functions_and_functions_in_bodies() -> None:
    @oc.function("my.fn", "Square")
    def square(x: oc.Var) -> oc.Var:
        return op.Mul(x, x)

    @oc.function("my.other", "SumOfSquares")
    def sum_of_squares(x: oc.Var, y: oc.Var) -> oc.Var:
        return op.Add(square(x), square(y))

    X = oc.arg("X", F32, (3,))
    C = oc.arg("C", np.bool_, ())
    (y,) = op.If(C, then_branch=lambda: [sum_of_squares(X, X)], else_branch=lambda: [square(X)])
    model = oc.build([X, C], {"y": y})
    proto = onnx_model(model)
    assert sorted((f.domain, f.name) for f in proto.functions) == [
        ("my.fn", "Square"),
        ("my.other", "SumOfSquares"),
    ]
    outer = next(f for f in proto.functions if f.name == "SumOfSquares")
    assert {o.domain for o in outer.opset_import} == {"", "my.fn"}  # it imports what it calls
    x = np.array([1, 2, 3], F32)
    verify(model, {"X": x, "C": np.array(True)}, {"y": 2 * x * x})
    verify(model, {"X": x, "C": np.array(False)}, {"y": x * x})


def _pick_scale_model() -> Any:
    @oc.function("my.fn", "PickScale")
    def pick_scale(x: oc.Var, c: oc.Var, *, alpha: float = 2.0) -> oc.Var:
        (k,) = op.If(
            c,
            then_branch=lambda: [op.Constant(value_float=alpha)],
            else_branch=lambda: [op.Constant(value_float=1.0)],
        )
        return op.Mul(x, op.CastLike(k, x))

    X = oc.arg("X", F32, (2,))
    C = oc.arg("C", np.bool_, ())
    return oc.build([X, C], {"y": pick_scale(X, C, alpha=5.0)})


def test_a_function_attribute_used_inside_a_branch_of_the_body() -> None:
    model = _pick_scale_model()
    onnx.checker.check_model(onnx_model(model), full_check=True)
    oc.check(model)
    x = np.array([1, 2], F32)
    for c, factor in ((True, 5), (False, 1)):
        got = run_ort(model, {"X": x, "C": np.array(c)})["y"]
        np.testing.assert_array_equal(got, factor * x)


def test_the_evaluator_resolves_function_attributes_inside_branches() -> None:
    x = np.array([1, 2], F32)
    out = oc.evaluate(_pick_scale_model(), {"X": x, "C": np.array(True)})
    np.testing.assert_array_equal(out["y"], 5 * x)


def test_a_body_that_changes_with_the_input_type_is_an_error() -> None:
    @oc.function("my.fn", "AddOne")
    def add_one(x: oc.Var) -> oc.Var:
        return op.Add(x, 1.0)  # the constant takes x's type: float, then double

    add_one(oc.arg("X", F32, (2,)))
    with pytest.raises(oc.BuildError, match=r"AddOne: called with input types \(tensor\(double"):
        add_one(oc.arg("D", np.float64, (2,)))


def test_two_functions_of_one_name_clash_at_build() -> None:
    X = oc.arg("X", F32, (2,))

    @oc.function("my.fn", "F")
    def first(x: oc.Var) -> oc.Var:
        return op.Neg(x)

    @oc.function("my.fn", "F")
    def second(x: oc.Var) -> oc.Var:
        return op.Relu(x)

    with pytest.raises(oc.BuildError, match=r"two different functions are named my\.fn::F"):
        oc.build([X], {"a": first(X), "b": second(X)})


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda f, x: f(x, x), oc.BuildError, r"Scale: expected 1 inputs \(x\), got 2"),
        (lambda f, x: f(x, beta=1.0), oc.BuildError, r"Scale: unknown attribute\(s\) \['beta'\]"),
        (
            lambda f, x: f(x, alpha="big"),
            oc.OpAttributeError,
            r"Constant: attribute 'value_float' expects a float, got str 'big'",
        ),
    ],
    ids=["input count", "unknown attribute", "attribute type"],
)
def test_function_call_errors(call: Any, error: type, message: str) -> None:
    @oc.function("my.fn", "Scale")
    def scale(x: oc.Var, *, alpha: float = 1.0) -> oc.Var:
        return op.Mul(x, op.CastLike(op.Constant(value_float=alpha), x))

    with pytest.raises(error, match=message):
        call(scale, oc.arg("X", F32, (2,)))


def test_function_definition_errors() -> None:
    with pytest.raises(oc.BuildError, match="function: domain must be a custom domain name"):
        oc.function("", "F")

    def variadic(*xs: oc.Var) -> oc.Var:
        return xs[0]

    with pytest.raises(oc.BuildError, match=r"@function F: \*args/\*\*kwargs are not supported"):
        oc.function("my.fn", "F")(variadic)

    @oc.function("my.fn", "Needs")
    def needs(x: oc.Var, *, k: int) -> oc.Var:
        return op.Add(x, x)

    with pytest.raises(oc.BuildError, match=r"Needs: missing required attribute\(s\) \['k'\]"):
        needs(oc.arg("X", F32, (2,)))


def test_function_body_errors_are_raised_at_the_call() -> None:
    X = oc.arg("X", F32, (2,))

    @oc.function("my.fn", "Capture")
    def capture(x: oc.Var) -> oc.Var:
        return op.Add(x, X)  # X is not an input of the function

    with pytest.raises(oc.BuildError, match=r"function Capture: its body uses Var\(X"):
        capture(op.Neg(X))

    @oc.function("my.fn", "AsTensor")
    def as_tensor(x: oc.Var, *, alpha: float = 1.0) -> oc.Var:
        return op.Add(x, alpha)  # type: ignore[arg-type]

    with pytest.raises(oc.OpInputError, match="Add: input 'B': function attribute 'alpha' is"):
        as_tensor(X)


# -- custom operators --------------------------------------------------------------------------


def test_custom_op_attributes_and_optional_rule() -> None:
    X = oc.arg("X", F32, (2, 3))
    typed, untyped = oc.custom_op(
        "Split2",
        X,
        domain="com.example",
        version=2,
        outputs=2,
        infer=lambda types, attrs: [types[0], None],
        alpha=0.5,
        count=3,
        label="x",
        sizes=[1, 2],
        table=np.ones(2, F32),
    )
    assert typed.type == X.type and untyped.type is None
    proto = onnx_model(oc.build([X], {"y": typed}))
    node = proto.graph.node[0]
    assert (node.domain, node.op_type, len(node.output)) == ("com.example", "Split2", 2)
    kinds = {a.name: onnx.AttributeProto.AttributeType.Name(a.type) for a in node.attribute}
    assert kinds == {
        "alpha": "FLOAT",
        "count": "INT",
        "label": "STRING",
        "sizes": "INTS",
        "table": "TENSOR",
    }
    assert ("com.example", 2) in {(o.domain, o.version) for o in proto.opset_import}
    onnx.checker.check_model(proto, full_check=True)
    oc.check(proto)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"domain": ""}, oc.BuildError, r"custom_op 'Foo': domain '' is the standard one"),
        (
            {"domain": "d", "outputs": 0},
            oc.ArgumentError,
            r"custom_op 'Foo': outputs must be between 1 and 65536, got 0",
        ),
        (
            {"domain": "d", "alpha": object()},
            oc.OpAttributeError,
            r"Foo: attribute 'alpha' expects an int, float, str, .* got object",
        ),
    ],
    ids=["standard domain", "no outputs", "bad attribute"],
)
def test_custom_op_errors(kwargs: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        oc.custom_op("Foo", oc.arg("X", F32, (2,)), **kwargs)


# -- inline -------------------------------------------------------------------------------------


def _scale_function() -> onnx.FunctionProto:
    alpha = helper.make_attribute_ref("value_float", onnx.AttributeProto.FLOAT)
    alpha.ref_attr_name = "alpha"
    constant = helper.make_node("Constant", [], ["a"])
    constant.attribute.append(alpha)
    nodes = [
        constant,
        helper.make_node("CastLike", ["a", "x"], ["a2"]),
        helper.make_node("Mul", ["x", "a2"], ["scaled"]),
        helper.make_node("Twice", ["scaled"], ["out"], domain="local"),  # calls a sibling
    ]
    return helper.make_function(
        "local",
        "Scale",
        ["x"],
        ["out"],
        nodes,
        [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
        ["alpha"],
    )


def _twice_function() -> onnx.FunctionProto:
    return helper.make_function(
        "local",
        "Twice",
        ["x"],
        ["out"],
        [helper.make_node("Add", ["x", "x"], ["out"])],
        [helper.make_opsetid("", 17)],
    )


def _onnx_model_with_everything() -> onnx.ModelProto:
    """z = Scale(If(C, -relu(X @ W), relu(X @ W)), alpha=3): an initializer, a model-local
    function calling another one, and branches reading an outer value."""
    out = [helper.make_tensor_value_info("b", FLOAT, ["N", 2])]
    then_branch = helper.make_graph([helper.make_node("Neg", ["r"], ["b"])], "then", [], out)
    else_branch = helper.make_graph([helper.make_node("Identity", ["r"], ["b"])], "else", [], out)
    nodes = [
        helper.make_node("MatMul", ["X", "W"], ["h"]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("If", ["C"], ["y"], then_branch=then_branch, else_branch=else_branch),
        helper.make_node("Scale", ["y"], ["z"], domain="local", alpha=3.0),
    ]
    graph = helper.make_graph(
        nodes,
        "everything",
        [
            helper.make_tensor_value_info("X", FLOAT, ["N", 2]),
            helper.make_tensor_value_info("C", BOOL, []),
        ],
        [helper.make_tensor_value_info("z", FLOAT, ["N", 2])],
        [numpy_helper.from_array(np.array([[1, 2], [3, 4]], F32), "W")],
    )
    return helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
        functions=[_scale_function(), _twice_function()],
    )


def _reference(x: np.ndarray, c: bool) -> np.ndarray:
    r = np.maximum(x @ np.array([[1, 2], [3, 4]], F32), 0)
    return 2 * 3 * (-r if c else r)


def test_inline_an_onnx_model_with_functions_and_subgraphs_twice() -> None:
    source = _onnx_model_with_everything()
    onnx.checker.check_model(source, full_check=True)  # the oracle: a valid model
    X = oc.arg("X", F32, ("N", 2))
    C = oc.arg("C", np.bool_, ())
    first = oc.inline(source, X=X, C=C)["z"]
    assert first.type == oc.Tensor(F32, ("N", 2))  # typed through the function body
    second = oc.inline(source, X=first, C=C)["z"]
    model = oc.build([X, C], {"z": second}, opset=17)
    proto = onnx_model(model)
    assert sorted(f.name for f in proto.functions) == ["Scale", "Twice"]
    assert {(o.domain, o.version) for o in proto.opset_import} == {("", 17), ("local", 1)}
    assert len(proto.graph.initializer) == 1  # the one W, stored once
    x = np.array([[1, -1], [0.5, 2]], F32)
    for c in (True, False):
        expected = _reference(_reference(x, c), c)
        verify(model, {"X": x, "C": np.array(c)}, {"z": expected})


def test_inline_an_onnxcraft_model() -> None:
    X = oc.arg("X", F32, (2,))
    inner = oc.build([X], {"y": op.Relu(X) + 1.0})
    A = oc.arg("A", F32, (2,))
    twice = oc.inline(inner, X=oc.inline(inner, X=A)["y"])["y"]
    model = oc.build([A], {"out": twice})
    a = np.array([-1, 1], F32)
    verify(model, {"A": a}, {"out": np.maximum(np.maximum(a, 0) + 1, 0) + 1})


def test_inline_takes_literals_and_initializer_defaults() -> None:
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "bias"], ["y"])],
        "with_default",
        [
            helper.make_tensor_value_info("x", FLOAT, [2]),
            helper.make_tensor_value_info("bias", FLOAT, [2]),
        ],
        [helper.make_tensor_value_info("y", FLOAT, [2])],
        [numpy_helper.from_array(np.array([10, 20], F32), "bias")],  # a default for 'bias'
    )
    source = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    X = oc.arg("X", F32, (2,))
    defaulted = oc.inline(source, x=X)["y"]
    overridden = oc.inline(source, x=X, bias=np.array([1, 1], F32))["y"]
    model = oc.build([X], {"a": defaulted, "b": overridden}, opset=14)
    x = np.array([1, 2], F32)
    verify(model, {"X": x}, {"a": x + [10, 20], "b": x + 1})


def test_inlined_functions_of_one_name_but_different_bodies_clash() -> None:
    other = _onnx_model_with_everything()
    other.functions[1].node[0].op_type = "Mul"  # a different Twice
    X = oc.arg("X", F32, ("N", 2))
    C = oc.arg("C", np.bool_, ())
    a = oc.inline(_onnx_model_with_everything(), X=X, C=C)["z"]
    b = oc.inline(other, X=X, C=C)["z"]
    # The two Scale bodies are equal; the Twice they call are not, so Scale means two things.
    with pytest.raises(oc.BuildError, match="two different functions are named local::Scale"):
        oc.build([X, C], {"a": a, "b": b}, opset=17)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda m, x: oc.inline(m, X=x, C=x, Q=x), oc.BuildError, r"no input\(s\) \['Q'\]"),
        (
            lambda m, x: oc.inline(m, X=x),
            oc.BuildError,
            r"missing value\(s\) for input\(s\) \['C'\]",
        ),
        (lambda m, x: oc.inline(42, X=x), oc.ProtoError, r"inline: model: expected a ModelProto"),
        (lambda m, x: oc.inline(m, X=x, C=object()), oc.BuildError, r"input 'C' must be a Var"),
    ],
    ids=["unknown input", "missing input", "not a model", "bad value"],
)
def test_inline_errors(call: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call(_onnx_model_with_everything(), oc.arg("X", F32, ("N", 2)))


def test_inline_of_an_operator_missing_at_the_model_opset() -> None:
    graph = helper.make_graph(
        [helper.make_node("Gelu", ["x"], ["y"], name="g")],
        "too_new",
        [helper.make_tensor_value_info("x", FLOAT, [2])],
        [helper.make_tensor_value_info("y", FLOAT, [2])],
    )
    source = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(oc.BuildError, match=r"inline: node 'g': Gelu does not exist in ai.onnx"):
        oc.inline(source, x=oc.arg("X", F32, (2,)))


def test_inline_keeps_function_attribute_defaults_and_their_ir_version() -> None:
    """FunctionProto.attribute_proto (IR 9): a call that omits the attribute gets its default."""
    ref = helper.make_attribute_ref("alpha", onnx.AttributeProto.FLOAT)
    node = helper.make_node("LeakyRelu", ["x"], ["out"])
    node.attribute.append(ref)
    function = helper.make_function(
        "local",
        "Leaky",
        ["x"],
        ["out"],
        [node],
        [helper.make_opsetid("", 16)],
        attribute_protos=[helper.make_attribute("alpha", 0.5)],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Leaky", ["x"], ["a"], domain="local"),  # default alpha
            helper.make_node("Leaky", ["x"], ["b"], domain="local", alpha=0.1),
        ],
        "defaults",
        [helper.make_tensor_value_info("x", FLOAT, [2])],
        [helper.make_tensor_value_info(n, FLOAT, [2]) for n in ("a", "b")],
    )
    source = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 16), helper.make_opsetid("local", 1)],
        functions=[function],
        ir_version=9,
    )
    onnx.checker.check_model(source, full_check=True)
    X = oc.arg("X", F32, (2,))
    outputs = oc.inline(source, x=X)
    model = oc.build([X], outputs, opset=16)
    assert onnx_model(model).ir_version == 9  # opset 16 alone would allow 8
    x = np.array([-2, 2], F32)
    verify(model, {"X": x}, {"a": np.where(x < 0, 0.5 * x, x), "b": np.where(x < 0, 0.1 * x, x)})
