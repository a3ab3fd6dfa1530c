"""Tensor values as the text writes them, and back.

The values between a tensor literal's braces are the entries of the TensorProto field that
onnx's parser fills for the element type (``onnx/defs/parser.cc``), so both tools read the
same numbers the same way:

- float, double: decimal numbers (the shortest that reads back to the same value), ``inf``,
  ``-inf``, ``nan``, ``-nan``; complex64/complex128: real and imaginary part of each element,
  one after the other (``float_data``/``double_data``);
- the integer types and bool: the values (bool as 0 and 1);
- float16, bfloat16, the float8 and float6 types: the bits of each element as an unsigned
  integer (``int32_data`` holds bits, not values, for these);
- int4, uint4, float4e2m1 (two elements a byte) and int2, uint2 (four a byte): the packed
  bytes, first element in the low bits, as ``int32_data`` holds them;
- string: string literals.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, numpy_dtype, storage_dtype
from onnxcraft.text.syntax import quote

__all__ = [
    "PACKED",
    "array_from_entries",
    "check_entries",
    "entries",
    "entries_from_body",
    "entries_from_items",
    "is_float_written",
    "item_count",
    "items_text",
    "strings_array",
]

_FLOAT32 = {ElementType.FLOAT, ElementType.COMPLEX64}
_FLOAT64 = {ElementType.DOUBLE, ElementType.COMPLEX128}
_COMPLEX = {ElementType.COMPLEX64, ElementType.COMPLEX128}
# Elements per packed byte of the sub-byte types.
PACKED = {
    ElementType.INT4: 2,
    ElementType.UINT4: 2,
    ElementType.FLOAT4E2M1: 2,
    ElementType.INT2: 4,
    ElementType.UINT2: 4,
}
_BITS = {  # types whose entries are bit patterns
    ElementType.FLOAT16,
    ElementType.BFLOAT16,
    ElementType.FLOAT8E4M3FN,
    ElementType.FLOAT8E4M3FNUZ,
    ElementType.FLOAT8E5M2,
    ElementType.FLOAT8E5M2FNUZ,
    ElementType.FLOAT8E8M0,
    ElementType.FLOAT6E2M3,
    ElementType.FLOAT6E3M2,
}
# Integer limits of the entries of each integer-written type.
_INT_RANGE: dict[ElementType, tuple[int, int]] = {
    ElementType.INT8: (-(2**7), 2**7 - 1),
    ElementType.INT16: (-(2**15), 2**15 - 1),
    ElementType.INT32: (-(2**31), 2**31 - 1),
    ElementType.INT64: (-(2**63), 2**63 - 1),
    ElementType.UINT8: (0, 2**8 - 1),
    ElementType.UINT16: (0, 2**16 - 1),
    ElementType.UINT32: (0, 2**32 - 1),
    ElementType.UINT64: (0, 2**64 - 1),
    ElementType.BOOL: (0, 1),
    **{elem: (0, 2**8 - 1) for elem in PACKED},
    **{elem: (0, 2 ** (8 * storage_dtype(elem).itemsize) - 1) for elem in _BITS},
}
_INT_RANGE[ElementType.FLOAT6E2M3] = _INT_RANGE[ElementType.FLOAT6E3M2] = (0, 63)


def is_float_written(elem: ElementType) -> bool:
    """Are the entries of ``elem`` decimal numbers (else integers, or strings)?"""
    return elem in _FLOAT32 or elem in _FLOAT64


def item_count(elem: ElementType, dims: tuple[int, ...]) -> int:
    """How many entries a tensor of ``elem`` and ``dims`` writes."""
    count = math.prod(dims)
    if elem in PACKED:
        return -(-count // PACKED[elem])
    return 2 * count if elem in _COMPLEX else count


# -- printing -----------------------------------------------------------------------------------


def _float_texts(values: np.ndarray) -> list[str]:
    """Shortest decimal texts of float32 or float64 values, NaN's sign kept."""
    if values.dtype == np.float32:
        texts = [str(v) for v in values]  # numpy's shortest float32 text
    else:
        texts = [repr(v) for v in values.tolist()]
    negative_nan = np.flatnonzero(np.isnan(values) & np.signbit(values))
    for index in negative_nan.tolist():
        texts[index] = "-nan"
    return texts


def _pack(codes: np.ndarray, per_byte: int) -> np.ndarray:
    bits = 8 // per_byte
    mask = (1 << bits) - 1
    flat = codes.astype(np.int16).astype(np.uint8) & mask
    padded = np.zeros(-(-flat.size // per_byte) * per_byte, np.uint8)
    padded[: flat.size] = flat
    groups = padded.reshape(-1, per_byte)
    packed = np.zeros(groups.shape[0], np.uint8)
    for k in range(per_byte):
        packed |= groups[:, k] << (bits * k)
    return packed


def entries(array: np.ndarray, elem: ElementType) -> np.ndarray | list[str]:
    """The field entries of ``array`` (onnxcraft's representation of ``elem``), flat."""
    flat = array.reshape(-1)
    if elem in PACKED:
        return _pack(_storage(flat, elem), PACKED[elem])
    if elem in _BITS:
        storage = storage_dtype(elem)
        unsigned = np.dtype(f"<u{storage.itemsize}")
        return _storage(flat, elem).view(unsigned)
    if elem in _COMPLEX:
        return flat.view(np.float32 if elem == ElementType.COMPLEX64 else np.float64)
    return flat


def _storage(flat: np.ndarray, elem: ElementType) -> np.ndarray:
    return flat.view(storage_dtype(elem)) if flat.dtype.names else flat


def items_text(array: np.ndarray, elem: ElementType) -> str:
    """The values of a tensor as the text between its braces."""
    if elem == ElementType.STRING:
        return ", ".join(quote(_as_str(v)) for v in array.reshape(-1).tolist())
    values = entries(array, elem)
    assert isinstance(values, np.ndarray)
    if values.dtype.kind == "f":
        return ", ".join(_float_texts(values))
    if values.dtype.kind == "b":
        values = values.astype(np.uint8)
    return ", ".join(map(str, values.tolist()))


def _as_str(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="surrogateescape")
    return str(value)


# -- parsing ------------------------------------------------------------------------------------

# What a plain list of numbers may hold: digits, signs, points, exponents, commas, white space
# and the letters of inf, infinity and nan. An item may not start with '+' or '.', which numpy
# would read but onnx's parser does not.
_NUMBER_CHARS = re.compile(r"[-+0-9.eE,\sinftyaINFTYA]*")
_BAD_START = re.compile(r",\s*[+.]")
_NEGATIVE_NAN = re.compile(r"-\s*[nN]")


def _entry_dtype(elem: ElementType) -> np.dtype[Any]:
    if elem in _FLOAT32:
        return np.dtype(np.float32)
    if elem in _FLOAT64:
        return np.dtype(np.float64)
    return np.dtype(np.uint64 if elem == ElementType.UINT64 else np.int64)


def entries_from_body(body: str, elem: ElementType) -> np.ndarray | None:
    """The entries of a tensor literal's raw body (between the braces) when it is a plain
    list of numbers of the element type: the fast path, numpy reading all numbers at once.
    None when it is anything else; the caller then reads it token by token, which tells
    where the problem is."""
    if _NUMBER_CHARS.fullmatch(body) is None or body.lstrip()[:1] in ("+", "."):
        return None
    if _BAD_START.search(body) is not None:
        return None
    parts = body.split(",")
    if len(parts) == 1 and not parts[0].strip():
        parts = []
    dtype = _entry_dtype(elem)
    try:
        entries = np.array(parts, dtype=dtype)
    except (ValueError, OverflowError):
        return None
    if dtype.kind == "f" and ("n" in body or "N" in body) and _NEGATIVE_NAN.search(body):
        _sign_negative_nans(entries, parts)
    return entries


def entries_from_items(items: list[str], elem: ElementType) -> np.ndarray:
    """The entries of the items read token by token (each a valid number of its kind)."""
    dtype = _entry_dtype(elem)
    if dtype.kind != "f":
        return (
            np.array([int(item) for item in items], dtype=object).astype(dtype)
            if items
            else (np.zeros(0, dtype))
        )
    entries = np.array(items, dtype=dtype)
    _sign_negative_nans(entries, items)
    return entries


def _sign_negative_nans(entries: np.ndarray, parts: list[str]) -> None:
    # numpy reads "-nan" as a NaN without its sign; the text keeps the sign.
    for index in np.flatnonzero(np.isnan(entries)).tolist():
        if parts[index].strip().startswith("-"):
            entries[index] = -np.abs(entries[index])


def check_entries(entries: np.ndarray, elem: ElementType) -> None:
    """Raise ValueError naming the first entry outside the range the element type writes."""
    limits = _INT_RANGE.get(elem)
    if limits is None or entries.size == 0:
        return
    if elem == ElementType.UINT64:
        return  # read as uint64: numpy refused what does not fit
    low, high = limits
    bad = np.flatnonzero((entries < low) | (entries > high))
    if bad.size:
        raise ValueError(f"the value {entries[bad[0]]}, outside {low}..{high}")


def array_from_entries(entries: np.ndarray, elem: ElementType, dims: tuple[int, ...]) -> np.ndarray:
    """The array (onnxcraft's representation of ``elem``) of checked entries."""
    dtype = numpy_dtype(elem)
    if elem in _FLOAT32 or elem in _FLOAT64:
        return entries.view(dtype).reshape(dims)
    if elem in PACKED:
        codes = _unpack(entries.astype(np.uint8), PACKED[elem], math.prod(dims))
        if elem in (ElementType.INT4, ElementType.INT2):  # sign-extend the values
            width = 8 // PACKED[elem]
            signed = codes.astype(np.int8)
            codes = np.where(signed >= 1 << (width - 1), signed - (1 << width), signed)
        return codes.astype(storage_dtype(elem)).view(dtype).reshape(dims)
    storage = storage_dtype(elem)
    if elem in _BITS:
        unsigned = np.dtype(f"<u{storage.itemsize}")
        return entries.astype(unsigned).view(storage).view(dtype).reshape(dims)
    return entries.astype(storage).view(dtype).reshape(dims)


def strings_array(items: list[str], dims: tuple[int, ...]) -> np.ndarray:
    array = np.empty(len(items), dtype=object)
    array[:] = items
    return array.reshape(dims)


def _unpack(data: np.ndarray, per_byte: int, count: int) -> np.ndarray:
    bits = 8 // per_byte
    mask = (1 << bits) - 1
    codes = np.empty((data.size, per_byte), np.uint8)
    for k in range(per_byte):
        codes[:, k] = (data >> (bits * k)) & mask
    return codes.reshape(-1)[:count]
