"""Literal lifting: numpy arrays and scalars, Python scalars, nested lists, ``oc.const``.

The element type of a literal comes from the operator's type constraint unified with the other
inputs; the expected types here are read off the ONNX spec (onnx.defs) and numpy, and every
model runs through ``verify``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op
from tests.core.oracle import onnx_model, verify

F32 = np.float32


def _initializers(model: Any) -> dict[str, np.ndarray]:
    return {t.name: numpy_helper.to_array(t) for t in onnx_model(model).graph.initializer}


@pytest.mark.parametrize(
    ("dtype", "literal"),
    [
        (np.float16, 0.5),
        (np.float64, 0.25),
        (np.int32, 3),
        (np.int8, -2),
        (np.uint8, 200),
        (np.float64, np.float32(0.5)),  # a numpy scalar follows the bound type too
        (np.int16, np.array([1, 2], np.int64)),
        (np.float16, [1.5, 2.5]),
    ],
    ids=["f16+float", "f64+float", "i32+int", "i8+int", "u8+int", "f64+np.f32", "i16+arr", "list"],
)
def test_literal_takes_the_type_bound_by_the_other_input(dtype: type, literal: Any) -> None:
    X = oc.arg("X", dtype, (2,))
    for y in (op.Add(X, literal), op.Add(literal, X)):  # either side binds the same way
        assert y.dtype == np.dtype(dtype)
    model = oc.build([X], {"y": op.Add(X, literal), "z": op.Mul(literal, X)})
    (constant,) = _initializers(model).values()
    assert constant.dtype == np.dtype(dtype)
    x = np.array([1, 2], dtype)
    value = np.asarray(literal).astype(dtype)
    verify(model, {"X": x}, {"y": x + value, "z": value * x})


@pytest.mark.parametrize(
    ("literal", "dtype"),
    [
        (1.5, np.float32),  # Python floats default to float32
        (2, np.int64),  # Python ints to int64
        (True, np.bool_),
        (np.float64(1.5), np.float64),  # numpy scalars keep their type
        (np.array([1, 2], np.int32), np.int32),
        ([[1.0, 2.0], [3.0, 4.0]], np.float32),
    ],
    ids=["float", "int", "bool", "np.float64", "int32 array", "nested list"],
)
def test_unbound_literals_keep_their_own_or_the_customary_type(literal: Any, dtype: type) -> None:
    y = op.Identity(literal)
    assert y.dtype == np.dtype(dtype)
    assert y.shape == np.shape(literal)
    verify(oc.build([], {"y": y}), {}, {"y": np.asarray(literal).astype(dtype)})


def test_literals_of_fixed_type_inputs_are_converted() -> None:
    X = oc.arg("X", F32, (2, 3))
    # Reshape's 'shape' input is tensor(int64): an int32 array and a list both become int64.
    a = op.Reshape(X, np.array([3, 2], np.int32))
    b = op.Reshape(X, [-1])
    model = oc.build([X], {"a": a, "b": b})
    assert {v.dtype for v in _initializers(model).values()} == {np.dtype(np.int64)}
    x = np.arange(6, dtype=F32).reshape(2, 3)
    verify(model, {"X": x}, {"a": x.reshape(3, 2), "b": x.reshape(-1)})


def test_string_and_bool_literals() -> None:
    S = oc.arg("S", np.str_, (3,))
    B = oc.arg("B", np.bool_, (3,))
    model = oc.build([S, B], {"eq": op.Equal(S, "b"), "both": op.And(B, [True, False, True])})
    s = np.array(["a", "b", "c"], object)
    b = np.array([True, True, False])
    verify(model, {"S": s, "B": b}, {"eq": s == "b", "both": b & [True, False, True]})


def test_literal_inside_a_body_is_lifted_there() -> None:
    X = oc.arg("X", F32, (2,))
    cond = op.Greater(op.ReduceSum(X, keepdims=0), 0.0)
    (y,) = op.If(cond, then_branch=lambda: [op.Add(X, 10.0)], else_branch=lambda: [X * 2])
    model = oc.build([X], {"y": y})
    x = np.array([1, 2], F32)
    verify(model, {"X": x}, {"y": x + 10})
    verify(model, {"X": -x}, {"y": -x * 2})


def test_literal_inside_a_function_becomes_a_constant_node() -> None:
    @oc.function("lit.test", "AddTen")
    def add_ten(x: oc.Var) -> oc.Var:
        return op.Add(x, op.CastLike(np.array(10.0, F32), x))

    X = oc.arg("X", F32, (2,))
    model = oc.build([X], {"y": add_ten(X)})
    proto = onnx_model(model)
    assert not proto.graph.initializer
    assert [n.op_type for n in proto.functions[0].node] == ["Constant", "CastLike", "Add"]
    x = np.array([1, 2], F32)
    verify(model, {"X": x}, {"y": x + 10})


# -- storage --------------------------------------------------------------------------------------


def test_identical_large_arrays_are_stored_once_and_different_ones_twice() -> None:
    X = oc.arg("X", F32, (64,))
    big = np.linspace(0, 1, 64, dtype=F32)  # 256 bytes: compared by digest
    same = big.copy()
    other_shape = big.reshape(8, 8)
    other_type = big.view(np.int32)  # the same bytes, another element type
    y = op.Add(op.Mul(X, big), same)
    z = op.Reshape(op.Add(X, other_shape.reshape(-1)), [8, 8]) + other_shape
    w = op.Cast(X, to=np.int32) + other_type
    model = oc.build([X], {"y": y, "z": z, "w": w})
    stored = list(_initializers(model).values())
    assert len([a for a in stored if a.shape == (64,) and a.dtype == F32]) == 1
    assert len([a for a in stored if a.shape == (8, 8)]) == 1
    assert len([a for a in stored if a.dtype == np.int32]) == 1
    x = np.arange(64, dtype=F32)
    verify(
        model,
        {"X": x},
        {
            "y": x * big + same,
            "z": (x + big).reshape(8, 8) + other_shape,
            "w": x.astype(np.int32) + other_type,
        },
    )


def test_arrays_over_a_mebibyte_are_told_apart_by_every_byte_not_just_the_sample() -> None:
    X = oc.arg("X", F32, (1 << 19,))
    big = np.arange(1 << 19, dtype=F32)  # 2 MiB: keyed by a sample, compared whole on a match
    same = big.copy()
    differs_between_samples = big.copy()
    differs_between_samples[(1 << 18) + 37] = -1.0  # a value no sampled window covers
    strided = np.repeat(big, 2)[::2]  # the same values as `big`, not contiguous
    model = oc.build_ir(
        [X],
        {
            "a": op.Add(X, big),
            "b": op.Add(X, same),
            "c": op.Add(X, differs_between_samples),
            "d": op.Add(X, strided),
        },
    )
    assert len(model.graph.initializers) == 2
    a, b, c, d = (node.inputs[1] for node in model.graph.nodes)  # the Adds, in output order
    assert a == b == d != c


@pytest.mark.parametrize(
    ("value", "dtype", "expected"),
    [
        (np.array([1.0, 2.0], F32), None, np.array([1.0, 2.0], F32)),
        ([1, 2], np.int8, np.array([1, 2], np.int8)),
        (3.0, np.float64, np.array(3.0)),
        ("text", None, np.array("text", object)),
    ],
    ids=["array", "list as int8", "scalar as float64", "string"],
)
def test_const_makes_a_constant_node(value: Any, dtype: Any, expected: np.ndarray) -> None:
    c = oc.const(value, dtype)
    assert c.dtype == expected.dtype and c.shape == expected.shape
    model = oc.build([], {"c": c})
    proto = onnx_model(model)
    assert [n.op_type for n in proto.graph.node] == ["Constant"] and not proto.graph.initializer
    verify(model, {}, {"c": expected})


# -- misuse -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda x: op.Add(x, 1.5), r"Add: input 'B' expects int32, got a float literal .*1\.5"),
        (lambda x: op.Add(x, float("nan")), r"Add: input 'B' expects int32.*non-integral.*nan"),
        (lambda x: op.Add(x, 2**40), r"Add: input 'B': literal \[1099511627776\] does not fit"),
        (lambda x: op.Add(x, [[1.0, 2.0], [3.0]]), r"Add: input 'B': cannot make a tensor of"),
        (lambda x: op.Add(x, {"a": 1}), r"Add: input 'B' expects a Var, a numpy array .*got dict"),
        (lambda x: op.Add(x, "text"), r"Add: input 'B' expects int32, got strings"),
        (
            lambda x: op.Sqrt(np.array([4], np.int64)),
            r"Sqrt: input 'X': a literal of type int64 is not allowed, expected one of \{",
        ),
    ],
    ids=["fraction", "nan", "too large", "ragged", "dict", "string", "type not allowed"],
)
def test_literal_errors_name_operator_input_expected_and_received(make: Any, message: str) -> None:
    x = oc.arg("x", np.int32, (2,))
    with pytest.raises(oc.OpInputError, match=message):
        make(x)


def test_const_with_an_impossible_dtype_names_what_and_why() -> None:
    with pytest.raises(oc.OpInputError, match=r"const: input 'value': literal \[300\] .*uint8"):
        oc.const([300], np.uint8)


def test_float_literal_that_overflows_the_bound_type_is_an_error() -> None:
    x = oc.arg("x", np.float16, (2,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(oc.OpInputError, match="float16"):
            op.Add(x, 1e6)


def test_onnx_reads_the_literal_values_back() -> None:
    """The stored constants, read by onnx's own numpy_helper, hold the literal's values."""
    X = oc.arg("X", np.float16, (3,))
    model = oc.build([X], {"y": op.Add(X, [0.1, 0.2, 0.3])})
    (stored,) = (
        numpy_helper.to_array(t)
        for t in onnx.load_from_string(model.SerializeToString()).graph.initializer
    )
    np.testing.assert_array_equal(stored, np.array([0.1, 0.2, 0.3], np.float16))


def test_a_float_literal_is_rounded_to_the_float_type_but_never_overflows_it() -> None:
    # The guide's rule: a value may round to the nearest float of the bound type (0.1 has no
    # exact float32, nor float64, value); it may not change otherwise.
    X = oc.arg("X", np.float32, (3,))
    model = oc.build([X], {"y": op.Add(X, np.array([0.1, 1 / 3, 1e-50]))})
    (stored,) = _initializers(model).values()
    assert stored.dtype == np.float32
    np.testing.assert_array_equal(stored, np.array([0.1, 1 / 3, 1e-50], np.float32))
    with pytest.raises(
        oc.OpInputError, match=r"Add: input 'B': literal \[1.e\+300\] overflows float"
    ):
        op.Add(X, np.float64(1e300))
    I = oc.arg("I", np.int32, (1,))
    with pytest.raises(oc.OpInputError, match="does not fit in int32"):
        op.Add(I, 2**31)
    with pytest.raises(oc.OpInputError, match="does not fit in uint8"):
        op.Add(oc.arg("U", np.uint8, (1,)), np.int8(-1))
