"""The build's fast paths give what the general code gives (issue 17, build speed).

- An array literal already of the bound element type's dtype is lifted without the general
  checks and conversion: the model is byte for byte the one the same values make through the
  general path (a Python list, another byte order, a strided view).
- The graph walk is one stack: the leaves (inputs, constants, captured values) come out in the
  order of a plain recursive depth-first walk, written here, which is the order constants are
  named in; nodes in call order.
- Operator calls whose inputs are all Vars (no literal) build the same graph as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.core.graphwalk import collect
from onnxcraft.core.literals import plain_elem
from onnxcraft.core.naming import Namer
from onnxcraft.core.var import ARG, INITIALIZER, Var
from onnxcraft.dtypes import ElementType
from onnxcraft.opset.ai.onnx import v21 as op

# dtypes Add accepts, each with values exact in it and in a Python list
_DTYPES = [np.float32, np.float64, np.float16, np.int64, np.int32, np.int16, np.int8, np.uint8]


def _serialized(x: Var, y: Var) -> bytes:
    return oc.build([x], {"y": y}, name="g").SerializeToString()  # type: ignore[no-any-return]


@pytest.mark.parametrize("dtype", _DTYPES)
def test_array_of_the_bound_dtype_builds_what_a_list_of_its_values_builds(dtype: Any) -> None:
    values = np.arange(6).astype(dtype).reshape(2, 3)
    x = oc.arg("x", dtype, (2, 3))
    fast = _serialized(x, op.Add(op.Mul(x, values), values[::-1]))
    x = oc.arg("x", dtype, (2, 3))
    general = _serialized(x, op.Add(op.Mul(x, values.tolist()), values[::-1].tolist()))
    assert fast == general


@pytest.mark.parametrize("dtype", _DTYPES)
def test_other_byte_order_and_strided_arrays_are_stored_like_native_contiguous(
    dtype: Any,
) -> None:
    values = np.arange(12).astype(dtype)
    swapped = values.astype(values.dtype.newbyteorder(">" if values.dtype.isnative else "<"))
    x = oc.arg("x", dtype, (6,))
    native = _serialized(x, op.Add(x, values[::2].copy()))
    for other in (swapped[::2], values[::2]):
        x = oc.arg("x", dtype, (6,))
        assert _serialized(x, op.Add(x, other)) == native


def test_plain_elem_is_only_for_native_plain_numbers() -> None:
    assert plain_elem(np.dtype(np.float32)) is ElementType.FLOAT
    assert plain_elem(np.dtype(np.int64)) is ElementType.INT64
    assert plain_elem(np.dtype(np.bool_)) is ElementType.BOOL
    non_native = ">f4" if np.dtype(np.float32).isnative and np.little_endian else "<f4"
    assert plain_elem(np.dtype(non_native)) is None
    assert plain_elem(np.dtype(object)) is None
    assert plain_elem(np.dtype("U3")) is None
    assert plain_elem(np.dtype([("a", np.uint16)])) is None


def test_a_lifted_array_is_a_read_only_view_of_the_users_array() -> None:
    values = np.ones(3, np.float32)
    x = oc.arg("x", np.float32, (3,))
    constant = op.Mul(x, values).producer.inputs[1]  # type: ignore[union-attr]
    assert constant is not None and constant.kind == INITIALIZER
    assert np.shares_memory(constant.value, values)
    assert not constant.value.flags.writeable
    assert values.flags.writeable  # the user's own array is left as it was


def test_constants_are_named_in_walk_order_not_call_order() -> None:
    x = oc.arg("x", np.float32, (2,))
    first = op.Mul(x, np.array([1, 2], np.float32))  # called first, reached second
    second = op.Add(x, np.array([3, 4], np.float32))
    model = oc.build([x], {"y": op.Sub(second, first)}, name="g")
    names = {t.name: tuple(t.raw_data) for t in model.graph.initializer}
    assert list(names) == ["c0", "c1"]
    assert names["c0"] == tuple(np.array([3, 4], np.float32).tobytes())
    assert [n.op_type for n in model.graph.node] == ["Mul", "Add", "Sub"]


def _reference_leaves(outputs: list[Var], scope: int) -> list[Var]:
    """Leaves in the order of a recursive depth-first walk, each dependency in input order."""
    seen: set[int] = set()
    visited: set[int] = set()
    found: list[Var] = []

    def visit(var: Var) -> None:
        if id(var) in seen:
            return
        node = var.producer
        if var.kind in (INITIALIZER, ARG) or node is None or node.scope != scope:
            seen.add(id(var))
            found.append(var)
            return
        if id(node) in visited:
            return
        visited.add(id(node))
        for dep in node.inputs:
            if dep is not None:
                visit(dep)

    for out in outputs:
        visit(out)
    return found


# A program: each step applies an operator to two operands, each an earlier value (an index
# into the values made so far) or a fresh literal (None); then the outputs (indices).
_steps = st.lists(
    st.tuples(
        st.sampled_from(["Add", "Mul", "Sub", "Max"]),
        st.one_of(st.none(), st.integers(0, 40)),
        st.one_of(st.none(), st.integers(0, 40)),
    ),
    min_size=1,
    max_size=25,
)


@settings(deadline=None)  # the first example loads the folding kernels (literal-only calls)
@given(steps=_steps, picks=st.lists(st.integers(0, 60), min_size=1, max_size=4))
def test_walk_order_matches_a_recursive_depth_first_walk(
    steps: list[tuple[str, int | None, int | None]], picks: list[int]
) -> None:
    inputs = [oc.arg(f"in{i}", np.float32, (3,)) for i in range(3)]
    values: list[Var] = list(inputs)
    for count, (name, left, right) in enumerate(steps):
        operands = [
            np.full(3, count * 2 + side, np.float32) if pick is None else values[pick % len(values)]
            for side, pick in enumerate((left, right))
        ]
        values.append(getattr(op, name)(*operands))
    outputs = [values[pick % len(values)] for pick in picks]
    walked = collect(outputs, 0)
    leaves = _reference_leaves(outputs, 0)
    assert walked.constants == [v for v in leaves if v.kind == INITIALIZER]
    assert walked.args == [v for v in leaves if v.kind == ARG]
    assert walked.captures == []
    orders = [node.order for node in walked.nodes]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)
    # exactly the nodes the outputs depend on
    reached: set[int] = set()
    stack = [v for v in outputs if v.producer is not None]
    while stack:
        node = stack.pop().producer
        if node is None or id(node) in reached:
            continue
        reached.add(id(node))
        stack.extend(v for v in node.inputs if v is not None and v.producer is not None)
    assert {id(node) for node in walked.nodes} == reached


def test_namer_names_are_unchanged() -> None:
    namer = Namer()
    assert namer.claim("mul1")
    got = [namer.fresh(base) for base in ["mul", "mul", "mul", "conv2", "conv2_", "2d", "a.b", ""]]
    assert got == ["mul0", "mul2", "mul3", "conv2_0", "conv2_1", "_2d0", "a_b0", "v0"]
