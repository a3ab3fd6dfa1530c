"""Python source for values: numbers, arrays of every element type, value types.

Every rendering is exact: the code evaluates to the same element type, shape and bits. Floats
are written in the shortest form that reads back to the same value of their own type (checked,
with the exact decimal of the value as the fallback); NaN and infinities as ``np.nan`` and
``np.inf``; a NaN with an unusual payload or sign, and anything else a literal cannot say, as
the tensor's bytes (``np.frombuffer(bytes.fromhex(...))``). Low-precision types are written
as their bit patterns (or, for int4 and friends, their values) viewed as onnxcraft's
representation (``docs/tensors.md``).
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, storage_dtype
from onnxcraft.pycode.layout import Expr, Group, call
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType

__all__ = ["Imports", "array_expr", "float_text", "string_text", "type_expr"]

_NUMPY_NAMES: dict[ElementType, str] = {
    ElementType.FLOAT: "np.float32",
    ElementType.DOUBLE: "np.float64",
    ElementType.FLOAT16: "np.float16",
    ElementType.INT8: "np.int8",
    ElementType.INT16: "np.int16",
    ElementType.INT32: "np.int32",
    ElementType.INT64: "np.int64",
    ElementType.UINT8: "np.uint8",
    ElementType.UINT16: "np.uint16",
    ElementType.UINT32: "np.uint32",
    ElementType.UINT64: "np.uint64",
    ElementType.BOOL: "np.bool_",
    ElementType.COMPLEX64: "np.complex64",
    ElementType.COMPLEX128: "np.complex128",
    ElementType.STRING: "object",
}
_FLOATS = {ElementType.FLOAT, ElementType.DOUBLE, ElementType.FLOAT16}
_COMPLEX: dict[ElementType, type[np.floating[Any]]] = {
    ElementType.COMPLEX64: np.float32,
    ElementType.COMPLEX128: np.float64,
}


class Imports:
    """What the rendered code needs imported beyond numpy and onnxcraft."""

    def __init__(self) -> None:
        self.numpy_dtype = False


def dtype_expr(elem: ElementType, imports: Imports) -> str:
    """The dtype argument of ``oc.arg`` / ``oc.Tensor``: numpy's where it has one."""
    if elem in _NUMPY_NAMES and elem != ElementType.STRING:
        return _NUMPY_NAMES[elem]
    if elem == ElementType.STRING:
        return "np.str_"
    return f"oc.ElementType.{elem.name}"


def _representation(elem: ElementType, imports: Imports) -> str:
    imports.numpy_dtype = True
    return f"numpy_dtype(oc.ElementType.{elem.name})"


def float_text(value: float, kind: type[np.floating[Any]] = np.float64) -> str:
    """``value`` (a value of ``kind``) as Python source reading back to the same ``kind``."""
    if math.isnan(value):
        return "np.nan"
    if math.isinf(value):
        return "np.inf" if value > 0 else "-np.inf"
    if kind is np.float64:
        return repr(float(value))
    short = str(kind(value))
    exact = kind(value)
    if kind(float(short)).tobytes() == exact.tobytes():
        return short
    return repr(float(value))


def string_text(value: str | bytes) -> str:
    """A str or bytes literal in ASCII (escapes for everything else), so that no character of
    the model can confuse a reader or a linter (ruff's ambiguous-unicode rules)."""
    if isinstance(value, bytes):
        return repr(value)
    # JSON's escapes (\n, \", \uXXXX, surrogates included) are all valid in Python strings.
    return json.dumps(value, ensure_ascii=True)


def _canonical_nans(array: np.ndarray) -> bool:
    """Whether every NaN of a float array is numpy's own, which ``np.nan`` gives back."""
    nan = np.isnan(array)
    if not nan.any():
        return True
    canonical = np.array(np.nan, dtype=array.dtype).tobytes()
    return all(v.tobytes() == canonical for v in array[nan])


def _shape_text(shape: tuple[int, ...]) -> str:
    inner = ", ".join(str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def _nested(items: list[str], shape: tuple[int, ...]) -> Expr:
    """A nested list of ``items`` (row-major) with ``shape``."""
    if len(shape) <= 1:
        return Group("[", tuple(items), "]", fill=True)
    step = len(items) // shape[0]
    return Group(
        "[",
        tuple(_nested(items[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])),
        "]",
    )


_SPECIAL_TEXTS = {"nan": "np.nan", "inf": "np.inf", "-inf": "-np.inf"}


def _float_texts(flat: np.ndarray) -> list[str]:
    """``float_text`` of every item, at numpy's speed: numpy writes each value in the
    shortest form that reads back to it in its own type; reading them back (as Python will,
    through float64) checks that, and the few that fail get their exact decimal."""
    if flat.dtype == np.float64:
        return [_SPECIAL_TEXTS.get(t, t) for t in map(repr, flat.tolist())]
    texts = flat.astype(str)
    finite = np.isfinite(flat)
    back = np.zeros_like(flat)
    back[finite] = texts[finite].astype(np.float64).astype(flat.dtype)
    wrong = finite & (
        back.view(_UINT[flat.dtype.itemsize]) != flat.view(_UINT[flat.dtype.itemsize])
    )
    result = [_SPECIAL_TEXTS.get(t, t) for t in texts.tolist()]
    for index in np.flatnonzero(wrong).tolist():
        result[index] = repr(float(flat[index]))
    return result


_NESTED_UP_TO = 256  # elements: larger arrays of rank 2 and more are written flat, reshaped
_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _texts(flat: np.ndarray, elem: ElementType) -> list[str] | None:
    """The items of a flat array as source text; None when some value has no exact literal."""
    if elem in _FLOATS:
        if not _canonical_nans(flat):
            return None
        return _float_texts(flat)
    if elem in _COMPLEX:
        part = _COMPLEX[elem]
        if not (_canonical_nans(flat.real) and _canonical_nans(flat.imag)):
            return None
        return [
            f"complex({float_text(float(v.real), part)}, {float_text(float(v.imag), part)})"
            for v in flat
        ]
    if elem == ElementType.BOOL:
        return ["True" if v else "False" for v in flat.tolist()]
    if elem == ElementType.STRING:
        return [string_text(v) if isinstance(v, (str, bytes)) else "None" for v in flat.tolist()]
    return [str(int(v)) for v in flat.tolist()]


def array_expr(array: np.ndarray, elem: ElementType, imports: Imports) -> Expr:
    """Source text evaluating to ``array`` (onnxcraft's representation of ``elem``)."""
    if elem in _NUMPY_NAMES:
        return _native_expr(array, elem, imports)
    # A low-precision type: its storage (bits, or the values of int4 and friends) viewed as
    # onnxcraft's structured representation.
    storage = array.view(storage_dtype(elem)) if array.dtype.names else array
    storage_elem = {np.dtype("u1"): ElementType.UINT8, np.dtype("i1"): ElementType.INT8}.get(
        storage.dtype, ElementType.UINT16
    )
    plain = _native_expr(np.asarray(storage), storage_elem, imports, scalar_as_array=True)
    view = f".view({_representation(elem, imports)})"
    if isinstance(plain, str):
        return plain + view
    return Group(plain.opening, plain.items, plain.closing + view)


def _native_expr(
    array: np.ndarray, elem: ElementType, imports: Imports, *, scalar_as_array: bool = False
) -> Expr:
    dtype = _NUMPY_NAMES[elem]
    shape = tuple(int(d) for d in array.shape)
    if array.size == 0:
        return f"np.empty({_shape_text(shape)}, dtype={dtype})"
    flat = array.reshape(-1)
    texts = _texts(flat, elem)
    if texts is None:
        data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes().hex()
        code = array.dtype.newbyteorder("<").str
        return Group(
            "np.frombuffer(",
            (call("bytes.fromhex", repr(data)), repr(code)),
            f").reshape({_shape_text(shape)})" if shape else ").reshape(())",
        )
    if not shape:
        if elem == ElementType.STRING or scalar_as_array:
            return f"np.array({texts[0]}, dtype={dtype})"
        return f"{dtype}({texts[0]})" if elem != ElementType.BOOL else f"np.bool_({texts[0]})"
    if array.size > 1 and len(set(texts)) == 1:
        return call("np.full", _shape_text(shape), texts[0], f"dtype={dtype}")
    if len(shape) > 1 and array.size > _NESTED_UP_TO:
        # Nested lists read well for a matrix, not for a kernel of thousands of values: those
        # are one filled list, reshaped.
        flat_list = Group("[", tuple(texts), "]", fill=True)
        return Group("np.array(", (flat_list, f"dtype={dtype}"), f").reshape({_shape_text(shape)})")
    return call("np.array", _nested(texts, shape), f"dtype={dtype}")


def type_expr(value: ValueType | None, imports: Imports) -> str:
    """An onnxcraft type as source: ``oc.Tensor(np.float32, ("N", 4))``."""
    if value is None:
        return "None"
    if isinstance(value, (Tensor, SparseTensor)):
        name = "oc.Tensor" if isinstance(value, Tensor) else "oc.SparseTensor"
        dtype = "None" if value.elem_type is None else dtype_expr(value.elem_type, imports)
        return f"{name}({dtype}, {shape_expr(value.shape)})"
    if isinstance(value, Sequence):
        return f"oc.Sequence({type_expr(value.elem, imports)})"
    if isinstance(value, Optional):
        return f"oc.Optional({type_expr(value.elem, imports)})"
    if isinstance(value, Map):
        return f"oc.Map({dtype_expr(value.key, imports)}, {type_expr(value.value, imports)})"
    raise TypeError(f"not an onnxcraft type: {value!r}")


def shape_expr(shape: tuple[int | str | None, ...] | None) -> str:
    if shape is None:
        return "None"
    items = [
        "None" if d is None else string_text(d) if isinstance(d, str) else str(d) for d in shape
    ]
    if len(items) == 1:
        return f"({items[0]},)"
    return f"({', '.join(items)})"
