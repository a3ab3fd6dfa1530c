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

import numpy as np

from onnxcraft.dtypes import ElementType, numpy_dtype, storage_dtype
from onnxcraft.text.syntax import quote

__all__ = [
    "PACKED",
    "entries",
    "integer_range",
    "item_count",
    "items_text",
    "parse_number_body",
    "values_from_items",
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

_FLOAT_ITEM = r"-?(?:[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))"
_INT_ITEM = r"-?[0-9]+"
_FLOAT_BODY = re.compile(rf"\s*(?:{_FLOAT_ITEM}\s*(?:,\s*{_FLOAT_ITEM}\s*)*)?")
_INT_BODY = re.compile(rf"\s*(?:{_INT_ITEM}\s*(?:,\s*{_INT_ITEM}\s*)*)?")


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


def parse_number_body(body: str, elem: ElementType) -> list[str] | None:
    """The entries of a tensor literal's raw body if it is a plain list of numbers fitting
    the element type (the fast path), else None (the caller reads it token by token)."""
    pattern = _FLOAT_BODY if elem in _FLOAT32 or elem in _FLOAT64 else _INT_BODY
    if pattern.fullmatch(body) is None:
        return None
    stripped = body.strip()
    return [item.strip() for item in stripped.split(",")] if stripped else []


def values_from_items(items: list[str], elem: ElementType, dims: tuple[int, ...]) -> np.ndarray:
    """The array (onnxcraft's representation) of a tensor literal's entries; the count and
    ranges are the caller's to check (:func:`item_count`, :func:`integer_range`)."""
    dtype = numpy_dtype(elem)
    if elem == ElementType.STRING:
        array = np.empty(len(items), dtype=object)
        array[:] = items
        return array.reshape(dims)
    if elem in _FLOAT32 or elem in _FLOAT64:
        floats = np.array(items, dtype=np.float32 if elem in _FLOAT32 else np.float64)
        for index, item in enumerate(items):
            if item.startswith("-") and item[1:2] in "nN":  # numpy drops the sign of -nan
                floats[index] = -abs(floats[index])
        return floats.view(dtype).reshape(dims)
    ints = np.array(
        [int(item) for item in items], dtype=np.uint64 if elem == ElementType.UINT64 else np.int64
    )
    if elem in PACKED:
        codes = _unpack(ints.astype(np.uint8), PACKED[elem], math.prod(dims))
        if elem in (ElementType.INT4, ElementType.INT2):  # sign-extend the values
            width = 8 // PACKED[elem]
            signed = codes.astype(np.int8)
            codes = np.where(signed >= 1 << (width - 1), signed - (1 << width), signed)
        return codes.astype(storage_dtype(elem)).view(dtype).reshape(dims)
    storage = storage_dtype(elem)
    if elem in _BITS:
        unsigned = np.dtype(f"<u{storage.itemsize}")
        return ints.astype(unsigned).view(storage).view(dtype).reshape(dims)
    return ints.astype(storage).view(dtype).reshape(dims)


def integer_range(elem: ElementType) -> tuple[int, int] | None:
    """The range of the integer entries of ``elem`` (None for float-written types)."""
    return _INT_RANGE.get(elem)


def _unpack(data: np.ndarray, per_byte: int, count: int) -> np.ndarray:
    bits = 8 // per_byte
    mask = (1 << bits) - 1
    codes = np.empty((data.size, per_byte), np.uint8)
    for k in range(per_byte):
        codes[:, k] = (data >> (bits * k)) & mask
    return codes.reshape(-1)[:count]
