"""Rules for Cast and CastLike: the input's shape, the target element type.

A cast between integer types keeps a shape-like value known in part (data propagation).
"""

from __future__ import annotations

from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.types import Tensor, ValueType

__all__ = ["register"]


def _is_integer(elem: ElementType | None) -> bool:
    if elem is None:
        return False
    try:
        return numpy_dtype(elem).kind in "iu"
    except (TypeError, ValueError):
        return False


def _keep_integer_value(ctx: InferenceContext, target: ElementType | None) -> None:
    """An integer shape-like value cast to another integer type keeps its entries."""
    if not (_is_integer(ctx.elem(0)) and _is_integer(target)):
        return
    entries = ctx.dims_value(0)
    if entries is not None:
        ctx.set_dims_value(0, entries, scalar=bool(ctx.value_is_scalar(0)), elem=target)


def _target(ctx: InferenceContext) -> ElementType | None:
    """The element type ``to`` names: a number, or in Cast-1 a type name such as "FLOAT16"."""
    to = ctx.attr("to")
    if to is None:
        return None
    if isinstance(to, bytes):
        to = to.decode()
    try:
        target = ElementType[to.upper()] if isinstance(to, str) else ElementType(int(to))
    except (KeyError, ValueError):
        target = ElementType.UNDEFINED
    if target == ElementType.UNDEFINED:
        expected = "a type name such as 'FLOAT'" if isinstance(to, str) else "an element type"
        raise ctx.fail(f"attribute 'to' must be {expected}, got {to!r}")
    return target


def _cast(ctx: InferenceContext) -> list[ValueType | None]:
    target = _target(ctx)
    if ctx.values_given and ctx.has_symbolic_input():
        _keep_integer_value(ctx, target)
    return [Tensor(target, ctx.shape(0))]


def _cast_like(ctx: InferenceContext) -> list[ValueType | None]:
    target = ctx.elem(1)
    if ctx.values_given and ctx.has_symbolic_input():
        _keep_integer_value(ctx, target)
    return [Tensor(target, ctx.shape(0))]


def register(rules: RuleRegistry) -> None:
    rules.add("Cast", _cast, since=ALL_VERSIONS)
    rules.add("CastLike", _cast_like, since=ALL_VERSIONS)
