"""Checking and normalizing attribute values given to operator calls.

Each ONNX attribute type accepts the Python values a user would naturally write and turns them
into one canonical form (int, float, str, tuple of those, numpy array, value type, Body).
Anything else is an OpAttributeError naming the operator, the attribute, what was expected and
what was received.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from onnxcraft.core.literals import literal_array
from onnxcraft.core.var import Body, Var
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import OnnxcraftError, OpAttributeError
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, as_element_type

__all__ = ["DTYPE_ATTRIBUTES", "normalize_attribute", "infer_attribute_type"]

# INT attributes that hold an element type: they also take any dtype-like (np.float32,
# "float16", an ElementType). Any other INT attribute takes numbers only, so that a stray
# string such as axis="a" is refused instead of read as a dtype code.
DTYPE_ATTRIBUTES = frozenset(
    {"to", "dtype", "output_dtype", "output_datatype", "stash_type", "softmax_precision",
     "precision"}
)  # fmt: skip

_VALUE_TYPES = (Tensor, SparseTensor, Sequence, Optional, Map)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
# Halfway between float32's largest value and 2**128: from here on, rounding gives inf.
_FLOAT32_OVERFLOW = 2.0**128 - 2.0**103


def _fail(op: str, name: str, expected: str, value: Any) -> OpAttributeError:
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return OpAttributeError(
        f"{op}: attribute {name!r} expects {expected}, got {type(value).__name__} {shown}"
    )


def _as_int(op: str, name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)) or (isinstance(value, float) and value.is_integer()):
        number = int(value)
    elif isinstance(value, (type, np.dtype, str)) and name in DTYPE_ATTRIBUTES:
        try:
            elem = as_element_type(value, what=f"{op}: attribute {name!r}")
        except OnnxcraftError:
            raise _fail(op, name, "an int (or a dtype-like for element types)", value) from None
        return int(ElementType.UNDEFINED if elem is None else elem)
    else:
        raise _fail(op, name, "an int", value)
    if not _INT64_MIN <= number <= _INT64_MAX:
        raise _fail(op, name, "an int within int64 (ONNX stores INT attributes as int64)", value)
    return number


def _as_float(op: str, name: str, value: Any) -> float:
    if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(
        value, (bool, np.bool_)
    ):
        raise _fail(op, name, "a float", value)
    try:
        number = float(value)
    except OverflowError:  # an int beyond any float
        raise _fail(op, name, "a float within float32's range", value) from None
    if math.isfinite(number) and abs(number) >= _FLOAT32_OVERFLOW:
        # ONNX stores FLOAT attributes as float32: 1e300 would silently become inf.
        raise _fail(op, name, "a float within float32's range", value)
    return number


def _as_str(op: str, name: str, value: Any) -> str:
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            raise _fail(op, name, "a str (bytes must be UTF-8)", value) from None
    if not isinstance(value, str):
        raise _fail(op, name, "a str", value)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates cannot be written to a model
        raise _fail(op, name, "a str that UTF-8 can encode", value) from None
    return value


def _as_list(op: str, name: str, value: Any, expected: str) -> list[Any]:
    if isinstance(value, (str, bytes, Var)):
        raise _fail(op, name, expected, value)
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise _fail(op, name, expected + " (1-D)", value)
        return list(value.tolist())
    if not isinstance(value, (list, tuple, range)):
        # a set has no order, a dict or a generator is not what was meant
        raise _fail(op, name, expected + " (a list or tuple)", value)
    return list(value)


def _as_tensor(op: str, name: str, value: Any) -> np.ndarray:
    if isinstance(value, Var):
        if isinstance(value.value, np.ndarray):  # not a value known only in part
            return value.value
        raise _fail(op, name, "a constant tensor (numpy array), not a graph value", value)
    if isinstance(value, (np.ndarray, int, float, bool, np.generic, list, tuple)):
        return literal_array(op, name, value, role="attribute")
    raise _fail(op, name, "a numpy array", value)


def normalize_attribute(
    op: str,
    name: str,
    attr_type: str,
    value: Any,
    trace_graph: Callable[[str, Any], Body] | None = None,
) -> Any:
    """Check ``value`` against the ONNX attribute type and return its canonical form."""
    if attr_type == "INT":
        return _as_int(op, name, value)
    if attr_type == "FLOAT":
        return _as_float(op, name, value)
    if attr_type == "STRING":
        return _as_str(op, name, value)
    if attr_type == "INTS":
        return tuple(_as_int(op, name, v) for v in _as_list(op, name, value, "a sequence of ints"))
    if attr_type == "FLOATS":
        items = _as_list(op, name, value, "a sequence of floats")
        return tuple(_as_float(op, name, v) for v in items)
    if attr_type == "STRINGS":
        return tuple(_as_str(op, name, v) for v in _as_list(op, name, value, "a sequence of str"))
    if attr_type == "TENSOR":
        return _as_tensor(op, name, value)
    if attr_type == "TENSORS":
        items = _as_list(op, name, value, "a sequence of numpy arrays")
        return tuple(_as_tensor(op, name, v) for v in items)
    if attr_type == "TYPE_PROTO":
        if isinstance(value, _VALUE_TYPES):
            return value
        raise _fail(op, name, "an onnxcraft type (oc.Tensor, oc.Sequence, ...)", value)
    if attr_type == "TYPE_PROTOS":
        items = _as_list(op, name, value, "a sequence of onnxcraft types")
        for item in items:
            if not isinstance(item, _VALUE_TYPES):
                raise _fail(op, name, "a sequence of onnxcraft types", value)
        return tuple(items)
    if attr_type in ("GRAPH", "GRAPHS"):
        if attr_type == "GRAPHS":
            items = _as_list(op, name, value, "a sequence of callables")
            return [_as_graph(op, name, v, trace_graph) for v in items]
        return _as_graph(op, name, value, trace_graph)
    if attr_type in ("SPARSE_TENSOR", "SPARSE_TENSORS"):
        return value
    raise _fail(op, name, f"a value of attribute type {attr_type}", value)


def _as_graph(
    op: str, name: str, value: Any, trace_graph: Callable[[str, Any], Body] | None
) -> Body:
    if isinstance(value, Body):
        return value
    if callable(value):
        if trace_graph is None:
            raise _fail(op, name, "a prebuilt subgraph (oc.subgraph) for this operator", value)
        return trace_graph(name, value)
    raise _fail(op, name, "a Python callable building the subgraph", value)


def infer_attribute_type(op: str, name: str, value: Any) -> str:
    """The ONNX attribute type for a value given to an operator without a spec."""
    if isinstance(value, (bool, int, np.integer, ElementType)):
        return "INT"
    if isinstance(value, (float, np.floating)):
        return "FLOAT"
    if isinstance(value, (str, bytes)):
        return "STRING"
    if isinstance(value, np.ndarray):
        return "TENSOR"
    if isinstance(value, Body) or callable(value):
        return "GRAPH"
    if isinstance(value, _VALUE_TYPES):
        return "TYPE_PROTO"
    if isinstance(value, (list, tuple)):
        if not value:
            raise _fail(op, name, "a non-empty list (the element type of [] is ambiguous)", value)
        first = value[0]
        if all(isinstance(v, (bool, int, np.integer)) for v in value):
            return "INTS"
        if all(isinstance(v, (int, float, np.integer, np.floating)) for v in value):
            return "FLOATS"
        if all(isinstance(v, (str, bytes)) for v in value):
            return "STRINGS"
        if all(isinstance(v, np.ndarray) for v in value):
            return "TENSORS"
        if isinstance(first, Body) or callable(first):
            return "GRAPHS"
    raise _fail(op, name, "an int, float, str, numpy array, callable or a list of those", value)
