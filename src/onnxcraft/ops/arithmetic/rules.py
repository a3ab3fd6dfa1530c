"""Rules for the arithmetic operators: Add, Sub, Mul, Div, Pow, Mod and Max, Min, Sum, Mean.

Besides the broadcast shape, the integer operators carry shape-like values through: ``N * 1``
of a symbolic dim stays ``N`` (data propagation); values known in full are left to folding.
"""

from __future__ import annotations

from collections.abc import Callable

from onnxcraft.dtypes import FLOAT_TYPES, ElementType
from onnxcraft.ops.arithmetic.shapes import legacy_broadcast_problem
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import (
    broadcast,
    broadcast_many,
    entries_binary,
    entry_add,
    entry_div,
    entry_max,
    entry_min,
    entry_mul,
    entry_sub,
    tensor,
)
from onnxcraft.types import Dim, Shape, Tensor, ValueType

__all__ = ["register", "binary_rule", "legacy_shape"]

_ENTRY_OPS: dict[str, Callable[[Dim, Dim], Dim]] = {
    "Add": entry_add,
    "Sub": entry_sub,
    "Mul": entry_mul,
    "Div": entry_div,
    "Max": entry_max,
    "Min": entry_min,
    "Sum": entry_add,
}
# Exact on Python ints, where int64 kernels wrap around.
_UNBOUNDED = frozenset(("Add", "Sub", "Mul"))
_INT64 = ElementType.INT64
# Operators whose opset < 7 versions broadcast B into A only (the result has A's shape).
_LEGACY_BROADCAST = ("Add", "Sub", "Mul", "Div", "Pow")


def binary_rule(ctx: InferenceContext) -> list[ValueType | None]:
    """Two inputs broadcast against each other; the result has A's element type."""
    a, b = ctx.tensor(0), ctx.tensor(1)
    if a is None:
        return [None]
    op = ctx.op
    if op.since_version < 7 and op.op_type in _LEGACY_BROADCAST:
        return [tensor(a.elem_type, legacy_shape(ctx))]
    shape = broadcast(op.op_type, a.shape, None if b is None else b.shape)
    elem = a.elem_type
    if elem is None and b is not None and op.op_type != "Pow":  # Pow's exponent has its own type
        elem = b.elem_type
    if ctx.values_given and (
        ctx.has_symbolic_input() or (elem is _INT64 and op.op_type in _UNBOUNDED)
    ):
        # int64 values (dims, most likely) are computed here on Python ints: a result past
        # int64 is an error, not the wrapped value a folding kernel would give.
        _propagate(ctx, [0, 1])
    return [tensor(elem, shape)]


def legacy_shape(ctx: InferenceContext) -> Shape:
    """A's shape, once B is known to fit it under the opset < 7 broadcasting rule."""
    a, b = ctx.shape(0), ctx.shape(1)
    if a is not None and b is not None:
        problem = legacy_broadcast_problem(
            a, b, int(ctx.attr("broadcast", 0) or 0), ctx.attr("axis")
        )
        if problem is not None:
            raise ctx.fail(problem)
    return a


def _propagate(ctx: InferenceContext, indices: list[int]) -> None:
    """The entries of an integer result computed from shape-like inputs known in part (values
    known in full are left to the engine, which folds them through the kernel)."""
    fn = _ENTRY_OPS.get(ctx.op.op_type)
    if fn is None:
        return
    operands = [ctx.dims_value(i) for i in indices]
    result = operands[0]
    for other in operands[1:]:
        if result is None or other is None:
            return
        combined = entries_binary(fn, result, other)
        if combined is None:
            return
        result = tuple(combined)
    if result is not None:
        scalar = all(ctx.value_is_scalar(i) for i in indices)
        ctx.set_dims_value(0, result, scalar=scalar, elem=ctx.elem(0))


def _variadic(ctx: InferenceContext) -> list[ValueType | None]:
    tensors = [ctx.tensor(i) for i in range(len(ctx.input_types))]
    known = [t for t in tensors if t is not None]
    if not known:
        return [None]
    elem = next((t.elem_type for t in known if t.elem_type is not None), None)
    if ctx.op.since_version < 8:
        shapes = [t.shape for t in known]
        shape = shapes[0] if all(s == shapes[0] for s in shapes) else None
    else:
        shape = broadcast_many(ctx.op.op_type, [None if t is None else t.shape for t in tensors])
    if ctx.values_given and ctx.op.op_type != "Mean" and ctx.has_symbolic_input():
        _propagate(ctx, list(range(len(tensors))))
    return [Tensor(elem, shape)]


def mod_rule(ctx: InferenceContext) -> list[ValueType | None]:
    """Mod: before version 28 the floored remainder (fmod=0) is defined for integers only."""
    elem = ctx.elem(0)
    if ctx.op.since_version < 28 and elem in FLOAT_TYPES and not int(ctx.attr("fmod", 0) or 0):
        raise ctx.fail(
            f"fmod=0 (the floored remainder) needs integer inputs at version "
            f"{ctx.op.since_version}, got {elem.name.lower() if elem else elem}; give "
            f"fmod=1 (the truncated remainder), or use Mod-28"
        )
    return binary_rule(ctx)


def register(rules: RuleRegistry) -> None:
    for name in ("Add", "Sub", "Mul", "Div", "Pow"):
        rules.add(name, binary_rule, since=ALL_VERSIONS)
    rules.add("Mod", mod_rule, since=ALL_VERSIONS)
    for name in ("Max", "Min", "Sum", "Mean"):
        rules.add(name, _variadic, since=ALL_VERSIONS)
