"""Arithmetic of the element types numpy lacks: bfloat16, float8, float6, float4, e8m0, int4/2.

    to_float32(array)                     decode any representation array to float32
    from_float32(values, elem, saturate=) encode float values into element type ``elem``
    cast(array, elem, saturate=, round_mode=)   the Cast operator between any two types

Rounding is to nearest, ties to even; ``saturate`` clips to the largest finite value first, as
the Cast specification defines for the float8 types. float8e8m0 rounds as ``round_mode`` says.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of, numpy_dtype, storage_dtype
from onnxcraft.errors import TensorConversionError
from onnxcraft.numerics.formats import FORMATS
from onnxcraft.numerics.minifloat import decode, encode

__all__ = ["cast", "from_float32", "to_float32"]

_SMALL_INTS = {
    ElementType.INT4: (-8, 7),
    ElementType.UINT4: (0, 15),
    ElementType.INT2: (-2, 1),
    ElementType.UINT2: (0, 3),
}


def _bits(array: np.ndarray) -> np.ndarray:
    return array[array.dtype.names[0]] if array.dtype.names else array


def to_float32(array: Any) -> np.ndarray:
    """float32 values of an array of any numeric element type (exact for the small types)."""
    # numpy arithmetic on 0-d arrays yields scalars: always hand back an array.
    return np.asarray(_decode_to_float32(np.asarray(array)))


def _decode_to_float32(array: np.ndarray) -> np.ndarray:
    if array.dtype.names is None:
        return np.asarray(array.astype(np.float32))
    elem = element_type_of(array.dtype)
    bits = _bits(array)
    if elem == ElementType.BFLOAT16:
        return (bits.astype(np.uint32) << 16).view(np.float32)
    if elem in FORMATS:
        return decode(bits, FORMATS[elem])
    if elem == ElementType.FLOAT8E8M0:
        # ldexp is exact where float32 exp2 may round (2**127 came out one ulp high); code
        # 0xFF (NaN) would overflow and is replaced below.
        with np.errstate(over="ignore"):
            values: np.ndarray = np.ldexp(np.float32(1), bits.astype(np.int32) - 127)
        return np.where(bits == 0xFF, np.float32(np.nan), values).astype(np.float32)
    if elem in _SMALL_INTS:
        return bits.astype(np.float32)
    raise TensorConversionError(f"to_float32: unsupported element type {elem.name}")


def _bfloat16(values: np.ndarray) -> np.ndarray:
    bits = values.astype(np.float32).view(np.uint32)
    rounding = np.uint32(0x7FFF) + ((bits >> 16) & 1)
    rounded = ((bits + rounding) >> 16).astype(np.uint16)
    quiet_nan = ((bits >> 16) | 0x0040).astype(np.uint16)  # keep NaNs NaN after truncation
    return np.where(np.isnan(values), quiet_nan, rounded)


def _e8m0(values: np.ndarray, saturate: bool, round_mode: str) -> np.ndarray:
    bits = values.astype(np.float32).view(np.uint32)
    exponent = ((bits >> 23) & 0xFF).astype(np.uint16)
    mantissa = bits & 0x7FFFFF
    special = exponent == 0xFF
    if round_mode == "up":
        up = mantissa > 0
    elif round_mode == "down":
        up = np.zeros(bits.shape, dtype=bool)
    elif round_mode == "nearest":
        half = 0x400000
        up = (mantissa > half) | ((mantissa == half) & (exponent > 0))
    else:
        raise TensorConversionError(
            f"float8e8m0: round_mode must be up, down or nearest, got {round_mode!r}"
        )
    up &= ~special
    if saturate:
        up &= exponent != 0xFE  # never round past the largest value
    result = np.minimum(exponent + up.astype(np.uint16), 0xFF)
    # The Cast table's special values (the sign is ignored: negatives are unspecified): NaN
    # stays NaN; infinity saturates to the largest value or is NaN; zero, which e8m0 lacks,
    # is the smallest value (code 0) when saturating and NaN otherwise.
    nan = np.isnan(values)
    infinite = special & ~nan
    zero = (bits & 0x7FFFFFFF) == 0
    out_of_range = infinite | zero
    if saturate:
        result = np.where(infinite, 0xFE, result)
    else:
        result = np.where(out_of_range, 0xFF, result)
    return np.where(nan, 0xFF, result).astype(np.uint8)


def from_float32(
    values: Any, elem: ElementType | int, *, saturate: bool = True, round_mode: str = "up"
) -> np.ndarray:
    """``values`` (float) encoded in element type ``elem``, in onnxcraft's representation."""
    elem = ElementType(elem)
    values = np.asarray(values)
    dtype = numpy_dtype(elem)
    if elem == ElementType.BFLOAT16:
        bits = _bfloat16(values)
    elif elem in FORMATS:
        bits = encode(values, FORMATS[elem], saturate=saturate)
    elif elem == ElementType.FLOAT8E8M0:
        bits = _e8m0(values, saturate, round_mode)
    elif elem in _SMALL_INTS:
        return _small_int(values, elem)
    else:
        return np.asarray(values.astype(dtype))
    if bits.dtype.itemsize == dtype.itemsize:
        return bits.view(dtype)
    return bits.astype(storage_dtype(elem)).view(dtype)


def _small_int(values: np.ndarray, elem: ElementType) -> np.ndarray:
    """Integers wrap into 2 or 4 bits; floats are truncated toward zero first."""
    low, high = _SMALL_INTS[elem]
    width = 4 if elem in (ElementType.INT4, ElementType.UINT4) else 2
    with np.errstate(all="ignore"):
        integers = (
            np.trunc(values).astype(np.int64)
            if values.dtype.kind == "f"
            else values.astype(np.int64)
        )
    wrapped = integers & ((1 << width) - 1)
    if low < 0:
        wrapped = np.where(wrapped > high, wrapped - (1 << width), wrapped)
    storage = np.int8 if low < 0 else np.uint8
    return wrapped.astype(storage).view(numpy_dtype(elem))


def cast(
    array: Any, elem: ElementType | int, *, saturate: bool = True, round_mode: str = "up"
) -> np.ndarray:
    """The Cast operator from any element type to ``elem``, one side at least a small type."""
    elem = ElementType(elem)
    array = np.asarray(array)
    target = numpy_dtype(elem)
    source_small = array.dtype.names is not None
    if source_small:
        source = element_type_of(array.dtype)
        if source in _SMALL_INTS and (elem in _SMALL_INTS or target.names is None):
            integers = _bits(array).astype(np.int64)
            return (
                _small_int(integers, elem)
                if elem in _SMALL_INTS
                else _from_integers(integers, elem)
            )
        values: np.ndarray = to_float32(array)
    elif array.dtype == object:
        values = np.asarray([float(v) for v in array.reshape(-1)], np.float32).reshape(array.shape)
    elif array.dtype.kind == "b":
        values = array.astype(np.float32)
    else:
        values = array
    if elem in _SMALL_INTS:
        return _small_int(values, elem)
    if target.names is not None:
        wide = values if values.dtype.kind == "f" else values.astype(np.float64)
        return from_float32(wide, elem, saturate=saturate, round_mode=round_mode)
    if elem == ElementType.STRING:
        out = np.empty(values.shape, dtype=object)
        out.reshape(-1)[:] = [str(v) for v in values.reshape(-1)]
        return out
    with np.errstate(all="ignore"):
        if target.kind in "iu" and values.dtype.kind == "f":
            return np.asarray(np.trunc(values).astype(target))
        return values.astype(target)


def _from_integers(integers: np.ndarray, elem: ElementType) -> np.ndarray:
    target = numpy_dtype(elem)
    with np.errstate(all="ignore"):
        return integers.astype(target)
