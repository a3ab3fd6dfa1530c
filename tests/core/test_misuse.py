"""Every error class a DSL user can trigger, raised at the offending call.

Each case lists the fragments its message must hold: the operator (or API call), the
argument, what was expected and what was received. The feature test files hold many more
errors; this table makes sure no class of ``onnxcraft.errors`` is left without one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
import onnxcraft.errors as errors
from onnxcraft.opset.ai.onnx import v21 as op

F32 = np.float32


def _x() -> oc.Var:
    return oc.arg("X", F32, ("N", 4))


def _model() -> Any:
    X = _x()
    return oc.build([X], {"y": op.Relu(X)})


def _custom_model() -> Any:
    X = _x()
    (y,) = oc.custom_op("Foo", X, domain="my.ext", infer=lambda types, attrs: [types[0]])
    return oc.build([X], {"y": y})


def _counting_loop() -> Any:
    v = oc.arg("v", F32, (1,))
    (out,) = op.Loop(np.array(10, np.int64), None, v, body=lambda i, c, x: [c, op.Neg(x)])
    return oc.build([v], {"y": out})


def _model_defining_y_twice() -> Any:
    from onnx import TensorProto, helper

    nodes = [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Neg", ["x"], ["y"])]
    vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in "xy"]
    graph = helper.make_graph(nodes, "g", vi[:1], vi[1:])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


@dataclass(frozen=True)
class Misuse:
    name: str
    error: type[Exception]
    call: Callable[[], Any]
    fragments: tuple[str, ...]  # operator, argument, expected, received


MISUSES = [
    Misuse(
        "an attribute the operator does not have (a typo)",
        oc.OpAttributeError,
        lambda: op.Softmax(_x(), axsi=1),  # type: ignore[arg-type]
        ("Softmax", "version 13", "no attribute 'axsi'", "did you mean 'axis'", "'axis'"),
    ),
    Misuse(
        "an attribute given to an operator that has none",
        oc.OpAttributeError,
        lambda: op.Relu(_x(), alpha=0.1),  # type: ignore[arg-type]
        ("Relu", "no attribute 'alpha'", "its attributes are: none"),
    ),
    Misuse(
        "input type outside the constraint",
        oc.OpInputError,
        lambda: op.Sqrt(oc.arg("I", np.int64, (4,))),
        ("Sqrt", "input 'X'", "expected one of {tensor(float16)", "tensor(int64)"),
    ),
    Misuse(
        "inputs of one type parameter differ",
        oc.OpInputError,
        lambda: op.Add(_x(), oc.arg("I", np.int64, (4,))),
        ("Add", "input 'B'", "input 'A' has tensor(float)", "has type tensor(int64)"),
    ),
    Misuse(
        "required input missing",
        oc.OpInputError,
        lambda: op.Relu(None),  # type: ignore[arg-type]
        ("Relu", "'X'", "expected at least 1 inputs", "got 0"),
    ),
    Misuse(
        "literal that changes value",
        oc.OpInputError,
        lambda: op.Add(oc.arg("I", np.int64, (2,)), 1.5),
        ("Add", "input 'B'", "expects int64", "float literal with non-integral values: [1.5]"),
    ),
    Misuse(
        "attribute of the wrong type",
        oc.OpAttributeError,
        lambda: op.Softmax(_x(), axis="last"),  # type: ignore[arg-type]
        ("Softmax", "attribute 'axis'", "expects an int", "got str 'last'"),
    ),
    Misuse(
        "required attribute missing",
        oc.OpAttributeError,
        lambda: op.Cast(_x()),  # type: ignore[call-arg]
        ("Cast", "attribute 'to'", "of type INT", "missing required"),
    ),
    Misuse(
        "shapes that cannot broadcast",
        oc.InferenceError,
        lambda: op.Add(oc.arg("A", F32, (2, 3)), oc.arg("B", F32, (4,))),
        ("Add", "cannot broadcast", "[2, 3]", "[4]"),
    ),
    Misuse(
        "matrices that cannot multiply",
        oc.InferenceError,
        lambda: op.MatMul(_x(), np.ones((3, 2), F32)),
        ("MatMul", "inner dimensions differ", "A[..., 4]", "B[3, ...]"),
    ),
    Misuse(
        "axis out of range",
        oc.OpAttributeError,
        lambda: op.Concat(_x(), _x(), axis=5),
        ("Concat", "'axis'", "-2 … 1", "r = 2", "got 5"),
    ),
    Misuse(
        "k larger than the axis",
        oc.InferenceError,
        lambda: op.TopK(_x(), np.array([5]), axis=1),
        ("TopK", "k=5", "larger than dimension 1", "(4)"),
    ),
    Misuse(
        "output depends on an unlisted input",
        oc.BuildError,
        lambda: oc.build([_x()], {"y": op.Add(oc.arg("Z", F32, (2,)), 1.0)}),
        ("build", "input 'Z'", "listed in inputs", "the outputs depend on"),
    ),
    Misuse(
        "an index outside the axis",
        oc.BuildError,
        lambda: oc.arg("V", F32, (3,))[3],
        ("x[...]", "index 3", "axis 0 of size 3", "out of range"),
    ),
    Misuse(
        "a dtype that is none",
        oc.ArgumentError,
        lambda: oc.arg("X", ",", None),  # numpy's own parser raised SyntaxError here
        ("arg 'X'", "dtype", "expected a numpy dtype-like", "got ','"),
    ),
    Misuse(
        "a Var used as a Python bool",
        oc.SymbolicValueError,
        lambda: bool(_x() == 0.0),
        ("from Equal)", "no truth value", "op.Where", "op.If"),
    ),
    Misuse(
        "an invalid model",
        oc.ValidationError,
        lambda: oc.check(_model_with_unknown_operator()),
        ("graph node 0", "'Rellu'", "[operator]", "does not exist in ai.onnx at opset 21"),
    ),
    Misuse(
        "not a model",
        oc.ProtoError,
        lambda: oc.check(42),
        ("check", "model", "expected a ModelProto", "got int"),
    ),
    Misuse(
        "a feed of the wrong shape",
        oc.EvaluationError,
        lambda: oc.evaluate(_model(), {"X": np.zeros((4, 5), F32)}),
        ("evaluate", "input 'X'", "expects shape [N, 4]", "got [4, 5]"),
    ),
    Misuse(
        "a feed of the wrong element type",
        oc.EvaluationError,
        lambda: oc.evaluate(_model(), {"X": np.zeros((2, 4))}),
        ("evaluate", "input 'X'", "expects element type float", "got double"),
    ),
    Misuse(
        "an operator without a kernel",
        oc.MissingKernelError,
        lambda: oc.evaluate(_custom_model(), {"X": np.zeros((2, 4), F32)}),
        ("Foo", "domain 'my.ext'", "opset 1", "no operator of that name"),
    ),
    Misuse(
        "a loop past the run's iteration limit",
        oc.EvaluationLimitError,
        lambda: oc.evaluate(
            _counting_loop(), {"v": np.zeros(1, F32)}, limits=oc.Limits(max_loop_iterations=3)
        ),
        ("Loop node", "max_loop_iterations=3", "iteration 4"),
    ),
    Misuse(
        "a model defining a value twice",
        oc.InvalidModelError,
        lambda: oc.evaluate(_model_defining_y_twice(), {"x": np.zeros(2, F32)}),
        ("graph node 1 (Neg)", "[ssa]", "value 'y'", "defined more than once"),
    ),
    Misuse(
        "to_python of an attribute the operator's signature lacks",
        oc.CodeGenerationError,
        lambda: oc.to_python(_model_with_stray_attribute()),
        ("to_python", "ai.onnx::Relu", "attribute 'alpha'", "not in the signature of Relu"),
    ),
    Misuse(
        "a target opset that needs a run-time value as an attribute",
        oc.VersionConversionError,
        lambda: oc.build(
            [x := _x(), a := oc.arg("axes", np.int64, (1,))],
            {"y": op.ReduceSum(x, a)},
            target_opset=11,
        ),
        ("ReduceSum node", "from version 13 to version 11", "input 1 (axes)", "run time"),
    ),
    Misuse(
        "a value no tensor can hold",
        oc.TensorConversionError,
        lambda: oc.from_array(np.array([object()])),
        ("from_array", "string tensor", "holds a", "object"),
    ),
    Misuse(
        "text that is not the ONNX syntax",
        oc.TextSyntaxError,
        lambda: oc.parse_node("y = Flatten <axis: int = 1.5> (x)"),
        ("line 1, column 26", "expected a value of type int", "found a float value"),
    ),
    Misuse(
        "a comparison against nothing it knows",
        oc.CompareError,
        lambda: oc.compare(_model(), {"X": np.zeros((2, 4), F32)}, against=3),
        ("compare", "against", "must be 'float64', 'onnxruntime', a model", "got int"),
    ),
]

# Classes a DSL user does not meet: the base class, errors of spec files (oc.load_opset's
# own tests cover them) and of model files on disk (tests/test_io.py).
NOT_DSL = {"OnnxcraftError", "SpecError", "ModelFileError", "ExternalDataError"}
NOT_DSL |= {"CommandLineError"}  # the onnxcraft command's own (tests/cli/test_errors.py)


def _model_with_unknown_operator() -> Any:
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Rellu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def _model_with_stray_attribute() -> Any:
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], alpha=0.5)],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


@pytest.mark.parametrize("case", MISUSES, ids=[m.name for m in MISUSES])
def test_the_message_names_operator_argument_expected_and_received(case: Misuse) -> None:
    with pytest.raises(case.error) as info:
        case.call()
    assert type(info.value) is case.error  # the precise class, not a parent
    message = str(info.value)
    missing = [f for f in case.fragments if f not in message]
    assert not missing, f"{missing} not in: {message}"


def test_every_dsl_error_class_has_a_case() -> None:
    covered = {m.error.__name__ for m in MISUSES}
    assert covered == set(errors.__all__) - NOT_DSL


def test_every_error_is_an_onnxcraft_error_and_its_builtin() -> None:
    assert issubclass(oc.OpInputError, TypeError) and issubclass(oc.OpInputError, oc.BuildError)
    assert issubclass(oc.InferenceError, ValueError)
    assert all(issubclass(getattr(errors, n), oc.OnnxcraftError) for n in errors.__all__)
