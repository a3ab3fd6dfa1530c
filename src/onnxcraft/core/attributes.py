"""Checking and normalizing attribute values given to operator calls.

Each ONNX attribute type accepts the Python values a user would naturally write and turns them
into one canonical form (int, float, str, tuple of those, numpy array, value type, Body).
Anything else is an OpAttributeError naming the operator, the attribute, what was expected and
what was received.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from onnxcraft.core.var import Body, Var
from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.errors import OpAttributeError
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor

__all__ = ["normalize_attribute", "infer_attribute_type"]

_VALUE_TYPES = (Tensor, SparseTensor, Sequence, Optional, Map)


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
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    # An INT attribute that names an element type (Cast.to, RandomNormal.dtype, ...) also
    # takes any dtype-like: np.float32, "float16", onnxcraft ElementType.
    if isinstance(value, (type, np.dtype, str)):
        try:
            elem = element_type_of(value)
        except (TypeError, ValueError, KeyError):
            raise _fail(op, name, "an int (or a dtype-like for element types)", value) from None
        return int(elem)
    raise _fail(op, name, "an int", value)


def _as_float(op: str, name: str, value: Any) -> float:
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return float(value)
    raise _fail(op, name, "a float", value)


def _as_str(op: str, name: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8")
    raise _fail(op, name, "a str", value)


def _as_list(op: str, name: str, value: Any, expected: str) -> list[Any]:
    if isinstance(value, (str, bytes, Var)):
        raise _fail(op, name, expected, value)
    if isinstance(value, np.ndarray):
        if value.ndim > 1:
            raise _fail(op, name, expected + " (1-D)", value)
        return list(value.tolist())
    try:
        return list(value)
    except TypeError:
        raise _fail(op, name, expected, value) from None


def _as_tensor(op: str, name: str, value: Any) -> np.ndarray:
    if isinstance(value, Var):
        if isinstance(value.value, np.ndarray):  # not a value known only in part
            return value.value
        raise _fail(op, name, "a constant tensor (numpy array), not a graph value", value)
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (int, float, bool, np.generic, list, tuple)):
        return np.asarray(value)
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
