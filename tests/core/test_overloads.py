"""Python operators on Vars: arithmetic, comparisons, logic and numpy-style indexing.

numpy is the oracle: each expression is also evaluated on numpy arrays, and the Var's
inferred shape must be numpy's shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op
from tests.core.oracle import onnx_model, verify

F32 = np.float32
x_value = np.arange(6, dtype=F32).reshape(2, 3) / 3 + 0.25
y_value = np.array([1.0, 2.0, 4.0], F32)
b_value = np.array([True, False, True])
i_value = np.array([1, 2, 3], np.int32)

# Each expression takes (X, Y, B, I) and works on Vars and numpy arrays alike.
EXPRESSIONS: dict[str, Callable[..., Any]] = {
    "add": lambda x, y, b, i: x + y,
    "radd": lambda x, y, b, i: 1.0 + x,
    "sub": lambda x, y, b, i: x - 2,
    "rsub": lambda x, y, b, i: 2 - x,
    "mul": lambda x, y, b, i: x * y,
    "rmul numpy scalar": lambda x, y, b, i: np.float32(3) * x,
    "div": lambda x, y, b, i: x / y,
    "rdiv": lambda x, y, b, i: 1 / y,
    "matmul": lambda x, y, b, i: x @ np.ones((3, 2), F32),
    "pow": lambda x, y, b, i: x**2,
    "rpow": lambda x, y, b, i: 2.0**x,
    "neg": lambda x, y, b, i: -x,
    "lt": lambda x, y, b, i: x < y,
    "le": lambda x, y, b, i: x <= 0.5,
    "gt": lambda x, y, b, i: x > y,
    "ge": lambda x, y, b, i: x >= 1,
    "eq": lambda x, y, b, i: x == y,
    "eq scalar": lambda x, y, b, i: x == 0.25,
    "ne": lambda x, y, b, i: x != y,
    "req int": lambda x, y, b, i: i == 2,
    "rne numpy scalar": lambda x, y, b, i: np.float32(2.0) != y,
    "and": lambda x, y, b, i: b & True,
    "or": lambda x, y, b, i: b | b,
    "xor": lambda x, y, b, i: b ^ True,
    "int add": lambda x, y, b, i: i + 1,
    "int mul": lambda x, y, b, i: i * np.int32(2),
    "list operand": lambda x, y, b, i: x + [1.0, 2.0, 3.0],
    "chain": lambda x, y, b, i: -(x * 2.0 + 1.0) @ np.ones((3, 2), F32) / 4,
}


def _args() -> tuple[oc.Var, ...]:
    return (
        oc.arg("X", F32, (2, 3)),
        oc.arg("Y", F32, (3,)),
        oc.arg("B", np.bool_, (3,)),
        oc.arg("I", np.int32, (3,)),
    )


FEEDS = {"X": x_value, "Y": y_value, "B": b_value, "I": i_value}


def test_every_operator_matches_numpy() -> None:
    args = _args()
    outputs = {name.replace(" ", "_"): f(*args) for name, f in EXPRESSIONS.items()}
    expected = {
        name.replace(" ", "_"): np.asarray(f(x_value, y_value, b_value, i_value))
        for name, f in EXPRESSIONS.items()
    }
    # numpy makes a float64 array of a Python list; onnxcraft lifts it to the type X binds.
    expected["list_operand"] = expected["list_operand"].astype(F32)
    for name, var in outputs.items():
        assert var.dtype == expected[name].dtype, name
        assert var.shape == expected[name].shape, name
    model = oc.build(list(args), outputs)
    verify(model, FEEDS, expected)


def test_operators_emit_opset_21() -> None:
    X = oc.arg("X", F32, (2,))
    proto = onnx_model(oc.build([X], {"y": X + 1.0}))
    assert [(o.domain, o.version) for o in proto.opset_import] == [("", 21)]


@pytest.mark.parametrize(
    "expression",
    [
        lambda x: np.ones(3, F32) + x,
        lambda x: np.ones(3, F32) < x,
        lambda x: np.eye(2, dtype=F32) @ x,
        lambda x: np.ones(3, F32) == x,
        lambda x: np.ones(3, F32) != x,
    ],
    ids=["add", "less", "matmul", "equal", "not equal"],
)
def test_numpy_array_on_the_left_defers_to_the_var(expression: Callable[[Any], Any]) -> None:
    X = oc.arg("X", F32, (2, 3))
    assert isinstance(expression(X), oc.Var)


def test_equality_builds_equal_and_not() -> None:
    X, Y, *_ = _args()
    eq, ne = X == Y, X != 0.25
    assert isinstance(eq, oc.Var) and isinstance(ne, oc.Var)
    assert eq.producer is not None and eq.producer.op.op_type == "Equal"
    assert ne.producer is not None and ne.producer.op.op_type == "Not"
    assert (eq.dtype, eq.shape) == (np.bool_, (2, 3))


def test_where_on_a_comparison_is_the_model_it_reads_as() -> None:
    # The case: X == 0.0 was Python's False, lifted to a constant.
    X = oc.arg("X", F32, (4,))
    model = oc.build([X], {"y": op.Where(X == 0.0, 1.0, X), "z": op.Where(X != 0.0, X, -1.0)})
    x = np.array([0.0, 2.0, 0.0, -3.0], F32)
    verify(
        model,
        {"X": x},
        {"y": np.where(x == 0.0, 1.0, x).astype(F32), "z": np.where(x != 0, x, -1).astype(F32)},
    )


def test_comparison_with_a_non_literal_is_python_identity() -> None:
    X, *_ = _args()
    assert (X == None) is False and (X != None) is True  # noqa: E711
    assert (object() == X) is False


@pytest.mark.parametrize(
    "use",
    [
        lambda x, y: bool(x),
        lambda x, y: bool(x == y),
        lambda x, y: x and y,
        lambda x, y: not x,
        lambda x, y: 1 if x < 0 else 0,
        lambda x, y: x in [y, x],  # [y, x]: x == y is a comparison node, not a bool
    ],
    ids=["bool", "bool of ==", "and", "not", "if", "in a list"],
)
def test_a_var_has_no_truth_value(use: Callable[[Any, Any], Any]) -> None:
    X, Y, *_ = _args()
    with pytest.raises(oc.SymbolicValueError, match=r"has no truth value.*op\.Where") as info:
        use(X, Y)
    assert isinstance(info.value, TypeError) and isinstance(info.value, oc.BuildError)


def test_a_var_is_not_iterable() -> None:
    # Python would otherwise iterate through x[0], x[1], ... and never stop on an unknown dim.
    X = oc.arg("X", F32, ("N",))
    with pytest.raises(oc.SymbolicValueError, match="not iterable"):
        list(X)
    with pytest.raises(TypeError):
        _a, _b = X


def test_vars_as_dict_keys_set_members_and_feeds() -> None:
    X, Y, B, I = _args()
    # Dicts and sets hash Vars by identity and never ask == of two different Vars.
    many = [oc.arg(f"V{i}", F32, (1,)) for i in range(2000)]
    table = {v: i for i, v in enumerate(many)}
    assert all(table[v] == i for i, v in enumerate(many)) and len(set(many)) == 2000
    assert X in {X, Y} and B not in {X, Y} and {X: 1, Y: 2}[Y] == 2
    # Identity finds a Var in a list without ==; 'in' that needs == raises (tested above).
    assert X in [X, Y] and any(v is Y for v in [X, Y]) and [X, Y].index(X) == 0
    # Feeds keyed by several Vars.
    outs = oc.evaluate(
        {"sum": X + Y, "masked": I * 2},
        {X: x_value, Y: y_value, I: i_value},
    )
    np.testing.assert_allclose(outs["sum"], x_value + y_value)
    np.testing.assert_array_equal(outs["masked"], i_value * 2)


# -- indexing -------------------------------------------------------------------------------------

cube = np.arange(60, dtype=F32).reshape(3, 4, 5)

INDEXES: dict[str, Any] = {
    "int": 1,
    "negative int": -1,
    "numpy int": np.int64(2),
    "int on axis 1": (slice(None), -2),
    "step": slice(None, None, 2),
    "negative step": slice(None, None, -1),
    "start stop negative step": (slice(2, 0, -1), slice(None, None, -2)),
    "negative stop": slice(None, -1),
    "past the end": slice(1, 100),
    "empty": slice(3, 1),
    "full": slice(None),
    "new axis": None,
    "new axis in the middle": (slice(None), None, 1),
    "ellipsis": (Ellipsis, 1),
    "ellipsis and new axis": (1, Ellipsis, None),
    "mixed": (slice(1, None), 2, slice(None, None, -2)),
    "empty tuple": (),
}


def test_every_index_form_matches_numpy() -> None:
    X = oc.arg("X", F32, (3, 4, 5))
    outputs = {f"i{n}": X[index] for n, index in enumerate(INDEXES.values())}
    expected = {f"i{n}": cube[index] for n, index in enumerate(INDEXES.values())}
    for (name, var), label in zip(outputs.items(), INDEXES):
        assert var.shape == expected[name].shape, label
    verify(oc.build([X], outputs), {"X": cube}, expected)


def test_indexing_symbolic_dims() -> None:
    X = oc.arg("X", F32, ("N", 4))
    outputs = {"last": X[-1], "flipped": X[::-1, 1:3], "new": X[..., None]}
    assert outputs["new"].shape == ("N", 4, 1)
    model = oc.build([X], outputs)
    for n in (2, 5):
        x = np.arange(n * 4, dtype=F32).reshape(n, 4)
        verify(model, {"X": x}, {"last": x[-1], "flipped": x[::-1, 1:3], "new": x[..., None]})


def test_var_index_gathers_along_axis_0() -> None:
    X = oc.arg("X", F32, (3, 4, 5))
    idx = oc.arg("I", np.int64, (2,))
    model = oc.build([X, idx], {"picked": X[idx]})
    index = np.array([2, 0], np.int64)
    verify(model, {"X": cube, "I": index}, {"picked": cube[index]})


@pytest.mark.parametrize(
    ("index", "message"),
    [
        ((Ellipsis, Ellipsis), r"x\[\.\.\.\]: at most one Ellipsis is allowed"),
        ((1, 2, 3, 4), r"x\[\.\.\.\]: too many indices \(4\) for a Var of rank 3"),
        (slice(None, None, 0), r"x\[\.\.\.\]: slice step cannot be zero"),
        (1.5, r"x\[\.\.\.\]: unsupported index 1.5: use ints, slices, None, Ellipsis or a Var"),
        ([0, 1], r"x\[\.\.\.\]: unsupported index \[0, 1\]"),
        (True, r"x\[\.\.\.\]: unsupported index True"),
        (3, r"x\[\.\.\.\]: index 3 is out of range for axis 0 of size 3"),
        ((slice(None), -5), r"x\[\.\.\.\]: index -5 is out of range for axis 1 of size 4"),
        (2**70, r"x\[\.\.\.\]: index 1180591620717411303424 does not fit in int64"),
    ],
    ids=[
        "two ellipses",
        "too many",
        "zero step",
        "float",
        "list",
        "bool",
        "past the end",
        "before the start",
        "huge",
    ],
)
def test_bad_indices_name_the_index_and_what_is_allowed(index: Any, message: str) -> None:
    X = oc.arg("X", F32, (3, 4, 5))
    with pytest.raises(oc.BuildError, match=message):
        X[index]


def test_ellipsis_needs_a_known_rank() -> None:
    U = oc.arg("U", F32, None)
    with pytest.raises(oc.BuildError, match="Ellipsis needs a Var of known rank"):
        U[..., 1]


def test_operator_errors_name_operator_input_and_types() -> None:
    X = oc.arg("X", F32, (3, 4, 5))
    with pytest.raises(oc.OpInputError, match=r"Add: input 'B' expects float, got strings"):
        X + "a"
    with pytest.raises(oc.InferenceError, match=r"MatMul: inner dimensions differ.*\[3, 4, 5\]"):
        X @ np.ones((3,), F32)
    with pytest.raises(oc.BuildError, match="no truth value"):
        bool(X > 0)
