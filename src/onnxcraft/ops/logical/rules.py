"""Rules for comparisons, logic, bitwise operators, IsNaN/IsInf and Where.

Equal and Where carry shape-like values known in part (data propagation): a symbolic dim equals
itself, and Where picks entries by a known condition.
"""

from __future__ import annotations

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.arithmetic.rules import binary_rule, legacy_shape
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import broadcast, broadcast_many, entries_binary, tensor
from onnxcraft.ops.math_unary.rules import same_type
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]

_COMPARISON = ("Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor")


def _comparison(ctx: InferenceContext) -> list[ValueType | None]:
    a, b = ctx.tensor(0), ctx.tensor(1)
    if ctx.op.since_version < 7:
        shape = legacy_shape(ctx)  # B fits into A's shape: the result has A's
    else:
        shape = broadcast(
            ctx.op.op_type, None if a is None else a.shape, None if b is None else b.shape
        )
    if ctx.op.op_type == "Equal" and ctx.values_given and ctx.has_symbolic_input():
        _propagate_equal(ctx)
    return [tensor(ElementType.BOOL, shape)]


def _entry_equal(a: Dim, b: Dim) -> Dim:
    if a is None or b is None:
        return None
    if a == b:
        return 1
    return 0 if type(a) is int and type(b) is int else None


def _propagate_equal(ctx: InferenceContext) -> None:
    a, b = ctx.dims_value(0), ctx.dims_value(1)
    if a is None or b is None:
        return
    result = entries_binary(_entry_equal, a, b)
    if result is not None:
        scalar = bool(ctx.value_is_scalar(0) and ctx.value_is_scalar(1))
        ctx.set_dims_value(0, result, scalar=scalar, elem=ElementType.BOOL)


def _predicate(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ElementType.BOOL, ctx.shape(0))]


def _where(ctx: InferenceContext) -> list[ValueType | None]:
    shapes = [ctx.shape(i) for i in range(3)]
    elem = ctx.elem(1) if ctx.elem(1) is not None else ctx.elem(2)
    if ctx.values_given and ctx.has_symbolic_input():
        _propagate_where(ctx)
    return [Tensor(elem, broadcast_many("Where", shapes))]


def _propagate_where(ctx: InferenceContext) -> None:
    cond, x, y = ctx.dims_value(0), ctx.dims_value(1), ctx.dims_value(2)
    if cond is None or x is None or y is None:
        return
    length = max(len(cond), len(x), len(y))
    if any(len(v) not in (1, length) for v in (cond, x, y)):
        return

    def at(v: tuple[Dim, ...], i: int) -> Dim:
        return v[0] if len(v) == 1 else v[i]

    result: list[Dim] = []
    for i in range(length):
        c, a, b = at(cond, i), at(x, i), at(y, i)
        if c is None:
            result.append(a if a is not None and a == b else None)
        else:
            result.append(a if c else b)
    scalar = all(ctx.value_is_scalar(i) for i in range(3))
    ctx.set_dims_value(0, result, scalar=scalar, elem=ctx.elem(1))


def register(rules: RuleRegistry) -> None:
    for name in _COMPARISON:
        rules.add(name, _comparison, since=ALL_VERSIONS)
    for name in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitShift"):
        rules.add(name, binary_rule, since=ALL_VERSIONS)
    for name in ("Not", "BitwiseNot"):
        rules.add(name, same_type, since=ALL_VERSIONS)
    for name in ("IsNaN", "IsInf"):
        rules.add(name, _predicate, since=ALL_VERSIONS)
    rules.add("Where", _where, since=ALL_VERSIONS)
