"""``oc.arg`` and value types: tensors with int/str/None dims, sequences, optionals, maps.

Declared types are compared with the same types written independently with onnx.helper, and
every model runs through ``verify`` (onnx's full checker, oc.check, onnxruntime, oc.evaluate).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v13
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.opset.ai.onnx.ml import v5 as ml
from tests.core.oracle import onnx_model, verify

F32 = np.float32
FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64


def _input_type(model: object, index: int = 0) -> onnx.TypeProto:
    return onnx_model(model).graph.input[index].type


def _output_type(model: object, name: str) -> onnx.TypeProto:
    return next(o.type for o in onnx_model(model).graph.output if o.name == name)


# -- tensors ----------------------------------------------------------------------------------


def test_int_str_and_none_dims_are_written_as_declared() -> None:
    X = oc.arg("X", F32, (None, "N", 3, 0))
    model = oc.build([X], {"y": op.Neg(X)})
    dims = _input_type(model).tensor_type.shape.dim
    assert [d.WhichOneof("value") for d in dims] == [None, "dim_param", "dim_value", "dim_value"]
    assert (dims[1].dim_param, dims[2].dim_value, dims[3].dim_value) == ("N", 3, 0)
    x = np.zeros((2, 5, 3, 0), F32)
    verify(model, {"X": x}, {"y": -x})


def test_symbolic_dims_flow_through_inference_and_accept_any_size() -> None:
    X = oc.arg("X", F32, ("batch", 4))
    y = op.MatMul(X, np.ones((4, 2), F32))
    assert y.shape == ("batch", 2) and y.rank == 2 and y.dtype == np.dtype(F32)
    model = oc.build([X], {"y": y})
    expected = helper.make_tensor_type_proto(FLOAT, ["batch", 2])
    assert _output_type(model, "y") == expected
    for batch in (1, 5):
        x = np.arange(batch * 4, dtype=F32).reshape(batch, 4)
        verify(model, {"X": x}, {"y": x @ np.ones((4, 2), F32)})


def test_scalar_input() -> None:
    X = oc.arg("X", np.int64, ())
    model = oc.build([X], {"y": op.Add(X, 1)})
    assert _input_type(model) == helper.make_tensor_type_proto(INT64, [])
    verify(model, {"X": np.array(41, np.int64)}, {"y": np.array(42, np.int64)})


ELEMENT_TYPES = [
    np.float16,
    np.float32,
    np.float64,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.bool_,
    np.str_,
]


@pytest.mark.parametrize("dtype", ELEMENT_TYPES, ids=lambda d: np.dtype(d).name)
def test_every_common_element_type_round_trips(dtype: type) -> None:
    X = oc.arg("X", dtype, (3,))
    model = oc.build([X], {"y": op.Identity(X)})
    expected_elem = helper.np_dtype_to_tensor_dtype(np.dtype(object if dtype is np.str_ else dtype))
    assert _input_type(model).tensor_type.elem_type == expected_elem
    x = np.array(["a", "bc", ""], object) if dtype is np.str_ else np.arange(3).astype(dtype)
    verify(model, {"X": x}, {"y": x})


def test_unknown_rank_is_allowed_inside_but_not_on_the_model_interface() -> None:
    """IR.md: main graph inputs and outputs need a rank, as onnx's checker enforces too."""
    X = oc.arg("X", F32, None)
    assert X.shape is None and X.rank is None and X.dtype == np.dtype(F32)
    with pytest.raises(oc.BuildError, match=r"input 'X'.*rank.*with_type"):
        oc.build([X], {"y": op.Neg(X)})
    # Stating the rank makes the same expression a valid model.
    Y = oc.arg("Y", F32, None).with_type(oc.Tensor(F32, ("N",)))
    model = oc.build([Y], {"y": op.Neg(Y)})
    oc.check(model)
    onnx.checker.check_model(onnx_model(model), full_check=True)
    # oc.check still reports models made elsewhere with an unknown rank on the interface.
    unranked = helper.make_model(
        helper.make_graph(
            [helper.make_node("Neg", ["X"], ["y"])],
            "g",
            [helper.make_tensor_value_info("X", FLOAT, None)],
            [helper.make_tensor_value_info("y", FLOAT, None)],
        )
    )
    with pytest.raises(oc.ValidationError, match=r"graph input 'X': \[io-type\]"):
        oc.check(unranked)
    with pytest.raises(onnx.checker.ValidationError, match="shape"):
        onnx.checker.check_model(unranked)


# -- sequences, optionals, maps -----------------------------------------------------------------


def test_sequence_input_and_outputs() -> None:
    S = oc.arg("S", oc.Sequence(oc.Tensor(F32, ("N",))))
    assert S.dtype is None and S.shape is None
    first = op.SequenceAt(S, 0)
    assert first.type == oc.Tensor(F32, ("N",))
    grown = op.SequenceInsert(S, op.Neg(first))
    assert grown.type == oc.Sequence(oc.Tensor(F32, ("N",)))
    model = oc.build([S], {"n": op.SequenceLength(S), "first": first, "grown": grown})
    expected = helper.make_sequence_type_proto(helper.make_tensor_type_proto(FLOAT, ["N"]))
    assert _input_type(model) == expected
    assert _output_type(model, "grown") == expected
    seq = [np.arange(3, dtype=F32), np.ones(3, F32)]
    verify(
        model,
        {"S": seq},
        {"n": np.array(2, np.int64), "first": seq[0], "grown": [*seq, -seq[0]]},
    )


def test_sequence_of_tensors_of_different_lengths() -> None:
    S = oc.arg("S", oc.Sequence(oc.Tensor(np.int64, (None,))))
    (lengths,) = op.SequenceMap(S, body=lambda t: [op.Shape(t)])
    model = oc.build([S], {"lengths": lengths, "joined": op.ConcatFromSequence(S, axis=0)})
    seq = [np.array([1, 2, 3]), np.array([4])]
    expected = {"lengths": [np.array([3]), np.array([1])], "joined": np.array([1, 2, 3, 4])}
    verify(model, {"S": seq}, expected)


def test_optional_tensor_present_and_absent() -> None:
    O = oc.arg("O", oc.Optional(oc.Tensor(F32, (2,))))
    has = op.OptionalHasElement(O)
    (value,) = op.If(
        has,
        then_branch=lambda: [op.OptionalGetElement(O)],
        else_branch=lambda: [np.zeros(2, F32)],
    )
    wrapped = op.Optional(value)
    assert wrapped.type == oc.Optional(oc.Tensor(F32, (2,)))
    model = oc.build([O], {"has": has, "value": value, "wrapped": wrapped})
    expected = helper.make_optional_type_proto(helper.make_tensor_type_proto(FLOAT, [2]))
    assert _input_type(model) == expected
    assert _output_type(model, "wrapped") == expected
    x = np.array([1, 2], F32)
    verify(model, {"O": x}, {"has": np.array(True), "value": x, "wrapped": x})
    zeros = np.zeros(2, F32)
    verify(model, {"O": None}, {"has": np.array(False), "value": zeros, "wrapped": zeros})


def test_optional_sequence_nested() -> None:
    O = oc.arg("O", oc.Optional(oc.Sequence(oc.Tensor(np.int64, (None,)))))
    model = oc.build([O], {"has": op.OptionalHasElement(O), "same": op.Identity(O)})
    inner = helper.make_sequence_type_proto(helper.make_tensor_type_proto(INT64, [None]))
    assert _input_type(model) == helper.make_optional_type_proto(inner)
    seq = [np.array([1, 2]), np.array([3])]
    verify(model, {"O": seq}, {"has": np.array(True), "same": seq})
    verify(model, {"O": None}, {"has": np.array(False), "same": None})


def test_map_input() -> None:
    M = oc.arg("M", oc.Map(np.int64, oc.Tensor(F32, ())))
    dense = ml.DictVectorizer(M, int64_vocabulary=[1, 2, 3])
    model = oc.build([M], {"dense": dense})
    expected = helper.make_map_type_proto(INT64, helper.make_tensor_type_proto(FLOAT, []))
    assert _input_type(model) == expected
    verify(model, {"M": {1: 1.5, 3: 2.0}}, {"dense": np.array([[1.5, 0.0, 2.0]], F32)})


def test_map_with_string_keys() -> None:
    M = oc.arg("M", oc.Map(np.str_, oc.Tensor(F32, ())))
    model = oc.build([M], {"dense": ml.DictVectorizer(M, string_vocabulary=["a", "b"])})
    verify(model, {"M": {"b": 7.0}}, {"dense": np.array([[0, 7]], F32)})


@pytest.mark.parametrize("labels", ["ints", "strings"])
def test_zipmap_output_is_a_sequence_of_maps(labels: str) -> None:
    X = oc.arg("X", F32, ("N", 3))
    keys = [10, 20, 30] if labels == "ints" else ["a", "b", "c"]
    attribute = {"classlabels_int64s": keys} if labels == "ints" else {"classlabels_strings": keys}
    probabilities = ml.ZipMap(op.Softmax(X, axis=1), **attribute)  # type: ignore[arg-type]
    key_type = np.int64 if labels == "ints" else np.str_
    assert probabilities.type == oc.Sequence(oc.Map(key_type, oc.Tensor(F32, ())))
    model = oc.build([X], {"p": probabilities})
    onnx_key = INT64 if labels == "ints" else TensorProto.STRING
    value_type = helper.make_tensor_type_proto(FLOAT, [])
    expected = helper.make_sequence_type_proto(helper.make_map_type_proto(onnx_key, value_type))
    assert _output_type(model, "p") == expected
    x = np.array([[0, 1, 2], [1, 1, 1]], F32)
    soft = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
    rows = [dict(zip(keys, (F32(v) for v in row))) for row in soft]
    verify(model, {"X": x}, {"p": rows})


def test_sequence_of_maps_input_is_its_own_output() -> None:
    """A main graph output may be an input of its name: no Identity (none carries maps)."""
    S = oc.arg("S", oc.Sequence(oc.Map(np.int64, oc.Tensor(F32, ()))))
    X = oc.arg("X", F32, (2,))
    model = oc.build([S, X], {"S": S, "y": op.Relu(X)})
    assert [n.op_type for n in onnx_model(model).graph.node] == ["Relu"]
    feeds = {"S": [{1: F32(1.0)}, {2: F32(2.0)}], "X": np.array([-1, 1], F32)}
    # onnxruntime's Python API cannot feed a sequence of maps; the other oracles run.
    verify(model, feeds, {"y": np.array([0, 1], F32)}, ort_check=False)


def test_sequence_of_maps_under_another_name_is_an_error() -> None:
    S = oc.arg("S", oc.Sequence(oc.Map(np.int64, oc.Tensor(F32, ()))))
    with pytest.raises(oc.BuildError, match=r"'copy'.*seq\(map\(int64.*no Identity version"):
        oc.build([S], {"copy": S})


def test_a_sequence_copy_raises_the_opset_identity_needs() -> None:
    Q = oc.arg("Q", oc.Sequence(oc.Tensor(F32, (2,))))
    X = oc.arg("X", F32, (2,))
    model = oc.build([Q, X], {"Q2": Q, "b": ml.Binarizer(X)})
    imports = {o.domain: o.version for o in onnx_model(model).opset_import}
    # No ai.onnx operator chose the opset: the copy is made at the default opset.
    assert imports[""] == 21
    verify(model, {"Q": [np.ones(2, F32)], "X": np.array([-1, 1], F32)})
    with pytest.raises(oc.BuildError, match=r"'Q2'.*Identity at ai.onnx opset 13.*>= 14"):
        oc.build([Q, X], {"Q2": Q, "b": v13.Relu(X)})


# -- misuse -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: oc.arg("", F32, (2,)), r"arg: name: expected a non-empty str, got ''"),
        (lambda: oc.arg("X"), r"arg 'X': a dtype \(e.g. np.float32\) or a type .* is required"),
        (
            lambda: oc.arg("X", F32, (-1,)),
            r"arg 'X': shape: dims must be between 0 and 2\*\*63-1, got -1",
        ),
        (lambda: oc.arg("X", F32, (2.5,)), r"arg 'X': shape: a dim must be an int.*got 2.5"),
        (lambda: oc.arg("X", F32, "NC"), r"arg 'X': shape: expected a sequence of dims.*'NC'"),
        (lambda: oc.arg("X", "floaty", (2,)), r"arg 'X': dtype: expected a numpy dtype-like.*"),
        (
            lambda: oc.arg("X", oc.Tensor(F32, (2,)), (2,)),
            r"arg 'X': pass either a type \(tensor\(float\)\[2\]\) or a dtype and shape",
        ),
        (
            lambda: oc.arg("M", oc.Sequence(oc.Map(F32, oc.Tensor(F32, ())))),
            r"arg 'M': a map key must be an integer type or string, got float",
        ),
    ],
    ids=[
        "empty name",
        "no dtype",
        "negative dim",
        "float dim",
        "string shape",
        "unknown dtype",
        "type and shape",
        "float map key",
    ],
)
def test_bad_arguments_to_arg(call: object, message: str) -> None:
    with pytest.raises(oc.BuildError, match=message):
        call()  # type: ignore[operator]


def test_arg_inside_a_body_is_an_error() -> None:
    X = oc.arg("X", F32, (1,))
    cond = op.Greater(op.ReduceSum(X, keepdims=0), 0.0)
    with pytest.raises(oc.BuildError, match="arg 'Z': graph inputs cannot be created inside"):
        op.If(cond, then_branch=lambda: [oc.arg("Z", F32, (1,))], else_branch=lambda: [X])


def test_with_type_merges_and_reports_contradictions() -> None:
    X = oc.arg("X", F32, ("N", None))
    assert X.with_type(oc.Tensor(F32, (None, 3))).type == oc.Tensor(F32, ("N", 3))
    with pytest.raises(oc.InferenceError, match=r"with_type\(\).*declared.*inferred"):
        oc.arg("A", F32, (2,)).with_type(oc.Tensor(F32, (3,)))  # a static dim disagrees
    with pytest.raises(oc.InferenceError, match="with_type"):
        oc.arg("B", F32, (2,)).with_type(oc.Tensor(np.int64, (2,)))  # element types differ
    with pytest.raises(oc.BuildError, match=r"with_type\(\): expected an oc.Tensor.*got tuple"):
        oc.arg("C", F32, (2,)).with_type((2,))  # type: ignore[arg-type]


def test_unknown_rank_and_unknown_dim_print_differently() -> None:
    # Both printed tensor(float)[?]. Unknown rank now prints as ONNX type strings write a
    # tensor of any shape; an unknown dim is '?'.
    assert str(oc.Tensor(F32, None)) == "tensor(float)"
    assert str(oc.Tensor(F32, (None,))) == "tensor(float)[?]"
    assert str(oc.Tensor(F32, ())) == "tensor(float)[]"
    assert str(oc.Tensor(F32, ("N", None, 3))) == "tensor(float)[N, ?, 3]"
    assert str(oc.SparseTensor(F32, None)) == "sparse_tensor(float)"
    assert str(oc.Sequence(oc.Tensor(F32, None))) == "seq(tensor(float))"
    assert repr(oc.arg("R", F32, None)) == "Var(R: tensor(float), graph input)"
    assert repr(oc.arg("D", F32, (None,))) == "Var(D: tensor(float)[?], graph input)"
    # and the same in error messages
    with pytest.raises(oc.BuildError, match=r"type \(tensor\(float\)\) or a dtype"):
        oc.arg("T", oc.Tensor(F32, None), (2,))
