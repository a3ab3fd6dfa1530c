"""Values printed the way a reader of numpy expects them: a small header (element type and
shape), then the elements, nested like the array."""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.dtypes import element_type_of, type_string
from onnxcraft.numerics import to_float32

__all__ = ["element_name", "value_text"]

_WIDTH = 88


def element_name(array: np.ndarray) -> str:
    """``float32``, ``int64``, ``bfloat16``, ``string`` ...: the element type of ``array``."""
    if array.dtype == object:
        return "string"
    if array.dtype.names is not None:
        return type_string(element_type_of(array.dtype))
    return str(array.dtype)


def _elements(array: np.ndarray) -> str:
    if array.dtype.names is not None:
        array = to_float32(array)  # low-precision types: their exact values, as float32
    if array.size == 0:
        return "[]"
    if array.dtype == object:
        return str(_texts(array.tolist()))
    return np.array2string(array, separator=", ", max_line_width=_WIDTH, threshold=10_000)


def _texts(item: Any) -> Any:
    """Nested lists of str (bytes decoded), whose repr reads like numpy's."""
    if isinstance(item, list):
        return [_texts(x) for x in item]
    return item.decode("utf-8", "replace") if isinstance(item, bytes) else str(item)


def _tensor_text(array: np.ndarray) -> str:
    if array.ndim == 0:
        return f"{element_name(array)} scalar: {_elements(array)}"
    return f"{element_name(array)} {tuple(array.shape)}\n{_elements(array)}"


def value_text(value: Any) -> str:
    """The text of a tensor, a sequence of tensors, a map, or an empty optional (None)."""
    if value is None:
        return "None (an empty optional)"
    if isinstance(value, list):
        if not value:
            return "an empty sequence"
        items = "\n".join(f"[{i}] {value_text(v)}" for i, v in enumerate(value))
        return f"a sequence of {len(value)}:\n{items}"
    if isinstance(value, dict):
        pairs = ", ".join(f"{k!r}: {_elements(np.asarray(v))}" for k, v in value.items())
        return f"a map of {len(value)}: {{{pairs}}}"
    return _tensor_text(np.asarray(value))
