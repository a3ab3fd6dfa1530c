"""Rules for Constant and ConstantOfShape: the value is known, so is its type."""

from __future__ import annotations

import numpy as np

from onnxcraft.core.types import Tensor, ValueType
from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.infer.registry import ALL_VERSIONS, InferenceContext, RuleRegistry

__all__ = ["register"]

_SCALAR_ATTRIBUTES = {
    "value_float": (ElementType.FLOAT, np.float32),
    "value_int": (ElementType.INT64, np.int64),
    "value_floats": (ElementType.FLOAT, np.float32),
    "value_ints": (ElementType.INT64, np.int64),
}


def _constant(ctx: InferenceContext) -> list[ValueType | None]:
    attrs = ctx.attributes
    if len(attrs) != 1:
        raise ctx.fail(f"exactly one value attribute must be given, got {sorted(attrs) or 'none'}")
    name, value = next(iter(attrs.items()))
    if name == "value":
        array = np.asarray(value)
        ctx.set_value(0, array)
        elem = ElementType.STRING if array.dtype == object else element_type_of(array.dtype)
        return [Tensor(elem, array.shape)]
    if name in _SCALAR_ATTRIBUTES:
        elem, dtype = _SCALAR_ATTRIBUTES[name]
        array = np.asarray(value, dtype=dtype)
        ctx.set_value(0, array)
        return [Tensor(elem, array.shape)]
    if name in ("value_string", "value_strings"):
        array = np.asarray(value, dtype=object)
        return [Tensor(ElementType.STRING, array.shape)]
    return [Tensor(None, None)]


def _constant_of_shape(ctx: InferenceContext) -> list[ValueType | None]:
    value = ctx.attr("value")
    elem = ElementType.FLOAT if value is None else element_type_of(np.asarray(value).dtype)
    dims = ctx.int_values(0)
    if dims is None:
        length = ctx.shape(0)
        rank = length[0] if length is not None and len(length) == 1 else None
        return [Tensor(elem, None if not isinstance(rank, int) else (None,) * rank)]
    if any(d < 0 for d in dims):
        raise ctx.fail(f"shape {dims} has negative dims")
    return [Tensor(elem, tuple(dims))]


def register(rules: RuleRegistry) -> None:
    rules.add("Constant", _constant, since=ALL_VERSIONS)
    rules.add("ConstantOfShape", _constant_of_shape, since=ALL_VERSIONS)
