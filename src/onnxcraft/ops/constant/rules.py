"""Rules for Constant, ConstantOfShape and Range: operators that make a tensor from values.

Constant's value is known, so is its type; ConstantOfShape and Range take their output shape
from input values, symbolic ones included (``Range(0, N, 1)`` has ``N`` elements).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.numerics import to_float32
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import unknown_dims
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]

_SCALAR_ATTRIBUTES = {
    "value_float": (ElementType.FLOAT, np.float32),
    "value_int": (ElementType.INT64, np.int64),
    "value_floats": (ElementType.FLOAT, np.float32),
    "value_ints": (ElementType.INT64, np.int64),
}
# A Range length whose quotient lies this close to an integer (relatively) is left unknown:
# runtimes computing in another precision may round it either way.
_RANGE_TOLERANCE = 1e-6


def _constant(ctx: InferenceContext) -> list[ValueType | None]:
    attrs = {k: v for k, v in ctx.attributes.items() if v is not None}
    if len(attrs) != 1:
        raise ctx.fail(f"exactly one value attribute must be given, got {sorted(attrs) or 'none'}")
    name, value = next(iter(attrs.items()))
    if name == "value":
        return [_tensor_constant(ctx, value)]
    if name == "sparse_value":
        dims = getattr(value, "dims", None)
        values = getattr(value, "values", None)
        elem = getattr(values, "elem_type", None)
        return [Tensor(elem, None if dims is None else tuple(int(d) for d in dims))]
    if name in _SCALAR_ATTRIBUTES:
        elem, dtype = _SCALAR_ATTRIBUTES[name]
        array = np.asarray(value, dtype=dtype)
        ctx.set_value(0, array)
        return [Tensor(elem, array.shape)]
    if name in ("value_string", "value_strings"):
        shape = () if name == "value_string" else (len(value),)
        return [Tensor(ElementType.STRING, shape)]
    return [Tensor(None, None)]


def _tensor_constant(ctx: InferenceContext, value: Any) -> Tensor:
    if not isinstance(value, np.ndarray) and hasattr(value, "dims"):
        # A large tensor left undecoded: its dims and element type are all a rule needs.
        return Tensor(value.elem_type, tuple(int(d) for d in value.dims))
    array = np.asarray(value)
    ctx.set_value(0, array)
    elem = ElementType.STRING if array.dtype == object else element_type_of(array.dtype)
    return Tensor(elem, array.shape)


def _constant_of_shape(ctx: InferenceContext) -> list[ValueType | None]:
    value = ctx.attr("value")
    elem = ElementType.FLOAT if value is None else element_type_of(np.asarray(value).dtype)
    if value is not None and np.asarray(value).size != 1:
        raise ctx.fail(f"value must hold one element, got {np.asarray(value).size}")
    shape_elem = ctx.elem(0)
    if shape_elem is not None and shape_elem != ElementType.INT64:
        raise ctx.fail(f"input 'input' (the shape) must be int64, got {shape_elem.name.lower()}")
    dims = ctx.dims_value(0)
    if dims is None:
        length = ctx.shape(0)
        rank = length[0] if length is not None and len(length) == 1 else None
        return [Tensor(elem, unknown_dims(rank))]
    if any(type(d) is int and d < 0 for d in dims):
        raise ctx.fail(f"shape {list(dims)} has negative dims")
    return [Tensor(elem, tuple(dims))]


def _range(ctx: InferenceContext) -> list[ValueType | None]:
    elem = next((ctx.elem(i) for i in range(3) if ctx.elem(i) is not None), None)
    for i, arg in enumerate(("start", "limit", "delta")):
        shape = ctx.shape(i)
        if shape is not None and (len(shape) > 1 or (shape and shape[0] not in (1, None))):
            raise ctx.fail(f"{arg} must be a scalar, got shape {list(shape)}")
    return [Tensor(elem, (_range_length(ctx),))]


def _range_length(ctx: InferenceContext) -> Dim:
    values = [ctx.value(i) for i in range(3)]
    if all(v is not None and v.size == 1 for v in values):
        start, limit, delta = (_number(v) for v in values if v is not None)
        return _count(ctx, start, limit, delta)
    entries = [ctx.dims_value(i) for i in range(3)]
    if any(e is None or len(e) != 1 for e in entries):
        return None
    start_e, limit_e, delta_e = (e[0] for e in entries if e is not None)
    if delta_e == 1 and start_e == 0:
        return limit_e  # 0, 1, ..., N - 1
    if start_e is not None and start_e == limit_e:
        return 0
    return None


def _number(value: np.ndarray) -> int | float:
    """The one element of a scalar tensor as a Python number (low precision decoded)."""
    if value.dtype.names is not None:  # bfloat16, float8 ...: a structured encoding
        value = to_float32(value)
    item = value.reshape(-1)[0]
    return int(item) if value.dtype.kind in "iu" else float(item)


def _count(ctx: InferenceContext, start: float, limit: float, delta: float) -> Dim:
    """max(ceil((limit - start) / delta), 0); unknown when rounding could go either way."""
    if isinstance(start, int) and isinstance(limit, int) and isinstance(delta, int):
        if delta == 0:
            raise ctx.fail("delta must not be 0")
        return max(-(-(limit - start) // delta), 0)
    lo, hi, step = float(start), float(limit), float(delta)
    if step == 0:
        raise ctx.fail("delta must not be 0")
    ratio = (hi - lo) / step
    if not math.isfinite(ratio):
        return None
    nearest = round(ratio)
    if ratio != nearest and abs(ratio - nearest) <= _RANGE_TOLERANCE * max(abs(ratio), 1.0):
        return None
    return max(math.ceil(ratio), 0)


def register(rules: RuleRegistry) -> None:
    rules.add("Constant", _constant, since=ALL_VERSIONS)
    rules.add("ConstantOfShape", _constant_of_shape, since=ALL_VERSIONS)
    rules.add("Range", _range, since=ALL_VERSIONS)
