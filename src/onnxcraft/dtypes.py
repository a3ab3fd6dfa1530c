"""ONNX element types and their numpy representation.

Types numpy has map to their numpy dtype (strings to ``object`` arrays of ``str``). Types numpy
lacks (bfloat16, the float8/float6/float4 variants, float8e8m0, int4/uint4/int2/uint2) are
represented unpacked, one element per numpy element, as a single-field structured dtype named
after the ONNX type whose base holds the bit pattern (the value, for int4/int2). Data movement
works on them unchanged; arithmetic raises, so nothing is computed in the wrong type by accident.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

__all__ = [
    "as_representation",
    "FLOAT_TYPES",
    "INTEGER_TYPES",
    "MAP_KEY_TYPES",
    "ElementType",
    "element_type_of",
    "from_type_string",
    "numpy_dtype",
    "storage_dtype",
    "type_string",
]


class ElementType(enum.IntEnum):
    """TensorProto.DataType: the ONNX element types."""

    UNDEFINED = 0
    FLOAT = 1
    UINT8 = 2
    INT8 = 3
    UINT16 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    STRING = 8
    BOOL = 9
    FLOAT16 = 10
    DOUBLE = 11
    UINT32 = 12
    UINT64 = 13
    COMPLEX64 = 14
    COMPLEX128 = 15
    BFLOAT16 = 16
    FLOAT8E4M3FN = 17
    FLOAT8E4M3FNUZ = 18
    FLOAT8E5M2 = 19
    FLOAT8E5M2FNUZ = 20
    UINT4 = 21
    INT4 = 22
    FLOAT4E2M1 = 23
    FLOAT8E8M0 = 24
    UINT2 = 25
    INT2 = 26
    FLOAT6E2M3 = 27
    FLOAT6E3M2 = 28

    # Enum hashes by name in Python code; element types key hot dictionaries, so use int's.
    __hash__ = int.__hash__


# The integer element types of 8 to 64 bits (the ones shapes, indices and map keys use).
INTEGER_TYPES = frozenset(
    {
        ElementType.INT8,
        ElementType.INT16,
        ElementType.INT32,
        ElementType.INT64,
        ElementType.UINT8,
        ElementType.UINT16,
        ElementType.UINT32,
        ElementType.UINT64,
    }
)
# Every floating-point element type, the low-precision formats included.
FLOAT_TYPES = frozenset(
    {
        ElementType.FLOAT,
        ElementType.DOUBLE,
        ElementType.FLOAT16,
        ElementType.BFLOAT16,
        ElementType.FLOAT8E4M3FN,
        ElementType.FLOAT8E4M3FNUZ,
        ElementType.FLOAT8E5M2,
        ElementType.FLOAT8E5M2FNUZ,
        ElementType.FLOAT4E2M1,
        ElementType.FLOAT8E8M0,
        ElementType.FLOAT6E2M3,
        ElementType.FLOAT6E3M2,
    }
)
# The element types a map's keys may have (IR.md): those integers and strings.
MAP_KEY_TYPES = INTEGER_TYPES | {ElementType.STRING}


_NATIVE: dict[ElementType, np.dtype[Any]] = {
    ElementType.FLOAT: np.dtype("<f4"),
    ElementType.UINT8: np.dtype("u1"),
    ElementType.INT8: np.dtype("i1"),
    ElementType.UINT16: np.dtype("<u2"),
    ElementType.INT16: np.dtype("<i2"),
    ElementType.INT32: np.dtype("<i4"),
    ElementType.INT64: np.dtype("<i8"),
    ElementType.STRING: np.dtype(object),
    ElementType.BOOL: np.dtype(bool),
    ElementType.FLOAT16: np.dtype("<f2"),
    ElementType.DOUBLE: np.dtype("<f8"),
    ElementType.UINT32: np.dtype("<u4"),
    ElementType.UINT64: np.dtype("<u8"),
    ElementType.COMPLEX64: np.dtype("<c8"),
    ElementType.COMPLEX128: np.dtype("<c16"),
}

# Types numpy lacks: (type string, storage base of the structured field).
_EXOTIC: dict[ElementType, tuple[str, str]] = {
    ElementType.BFLOAT16: ("bfloat16", "<u2"),
    ElementType.FLOAT8E4M3FN: ("float8e4m3fn", "u1"),
    ElementType.FLOAT8E4M3FNUZ: ("float8e4m3fnuz", "u1"),
    ElementType.FLOAT8E5M2: ("float8e5m2", "u1"),
    ElementType.FLOAT8E5M2FNUZ: ("float8e5m2fnuz", "u1"),
    ElementType.UINT4: ("uint4", "u1"),
    ElementType.INT4: ("int4", "i1"),
    ElementType.FLOAT4E2M1: ("float4e2m1", "u1"),
    ElementType.FLOAT8E8M0: ("float8e8m0", "u1"),
    ElementType.UINT2: ("uint2", "u1"),
    ElementType.INT2: ("int2", "i1"),
    ElementType.FLOAT6E2M3: ("float6e2m3", "u1"),
    ElementType.FLOAT6E3M2: ("float6e3m2", "u1"),
}

_STRUCTURED = {elem: np.dtype([(name, base)]) for elem, (name, base) in _EXOTIC.items()}

_TYPE_STRINGS: dict[ElementType, str] = {
    ElementType.FLOAT: "float",
    ElementType.UINT8: "uint8",
    ElementType.INT8: "int8",
    ElementType.UINT16: "uint16",
    ElementType.INT16: "int16",
    ElementType.INT32: "int32",
    ElementType.INT64: "int64",
    ElementType.STRING: "string",
    ElementType.BOOL: "bool",
    ElementType.FLOAT16: "float16",
    ElementType.DOUBLE: "double",
    ElementType.UINT32: "uint32",
    ElementType.UINT64: "uint64",
    ElementType.COMPLEX64: "complex64",
    ElementType.COMPLEX128: "complex128",
    **{elem: name for elem, (name, _) in _EXOTIC.items()},
}
_FROM_TYPE_STRING = {v: k for k, v in _TYPE_STRINGS.items()}

_FROM_NUMPY: dict[np.dtype[Any], ElementType] = {
    dt.newbyteorder("<") if dt.byteorder not in "|=" else dt: elem for elem, dt in _NATIVE.items()
}
_FROM_STRUCTURED = {name: elem for elem, (name, _) in _EXOTIC.items()}

# The dtypes of the ml_dtypes package (what onnx's numpy_helper returns for these types), by
# their scalar type's name: one element a byte (two for bfloat16) holding the same bits as the
# field of onnxcraft's structured representation. ml_dtypes itself is never imported.
_ML_DTYPES: dict[str, ElementType] = {
    "bfloat16": ElementType.BFLOAT16,
    "float8_e4m3fn": ElementType.FLOAT8E4M3FN,
    "float8_e4m3fnuz": ElementType.FLOAT8E4M3FNUZ,
    "float8_e5m2": ElementType.FLOAT8E5M2,
    "float8_e5m2fnuz": ElementType.FLOAT8E5M2FNUZ,
    "float8_e8m0fnu": ElementType.FLOAT8E8M0,
    "float4_e2m1fn": ElementType.FLOAT4E2M1,
    "float6_e2m3fn": ElementType.FLOAT6E2M3,
    "float6_e3m2fn": ElementType.FLOAT6E3M2,
    "int4": ElementType.INT4,
    "uint4": ElementType.UINT4,
    "int2": ElementType.INT2,
    "uint2": ElementType.UINT2,
}


# The sign bit's value of the signed small integers, whose codes ml_dtypes keeps unsigned.
_SIGNED_SMALL = {ElementType.INT4: 8, ElementType.INT2: 2}

# numpy numbers the dtypes that other packages register from here on.
_NPY_USERDEF = 256


def _ml_dtypes_element(dtype: np.dtype[Any]) -> ElementType | None:
    """The element type of an ml_dtypes dtype, None for any other dtype."""
    if dtype.num < _NPY_USERDEF or dtype.names is not None:
        return None  # a dtype of numpy's own
    elem = _ML_DTYPES.get(getattr(dtype.type, "__name__", ""))
    if elem is None or dtype.itemsize != _STRUCTURED[elem].itemsize:
        return None
    return elem


def as_representation(value: Any) -> Any:
    """``value`` in onnxcraft's representation of its element type: an array (or scalar) of an
    ml_dtypes dtype becomes a view of the same bits with onnxcraft's structured dtype; anything
    else is returned as it is."""
    dtype = getattr(value, "dtype", None)
    if not isinstance(dtype, np.dtype):
        return value
    elem = _ml_dtypes_element(dtype)
    if elem is None:
        return value
    if elem in _SIGNED_SMALL:
        # ml_dtypes keeps a signed int4/int2 as its two's-complement bits in the low bits of a
        # byte; onnxcraft holds the value itself (sign-extended): a copy, sized like the input.
        half = _SIGNED_SMALL[elem]
        bits = np.asarray(value).view(np.uint8)
        values = ((bits & (2 * half - 1)).astype(np.int8) ^ half) - half
        return values.astype(np.int8).view(_STRUCTURED[elem])
    return np.asarray(value).view(_STRUCTURED[elem])


def numpy_dtype(elem: ElementType | int) -> np.dtype[Any]:
    """The numpy dtype onnxcraft uses for arrays of element type ``elem``."""
    elem = ElementType(elem)
    if elem in _NATIVE:
        return _NATIVE[elem]
    if elem in _STRUCTURED:
        return _STRUCTURED[elem]
    raise ValueError(f"element type {elem.name} has no numpy representation")


def storage_dtype(elem: ElementType | int) -> np.dtype[Any]:
    """The plain dtype holding one element's bits: the field of a low-precision type's
    structured dtype (uint8 for float8, uint16 for bfloat16 ...), else the dtype itself."""
    dtype = numpy_dtype(elem)
    if dtype.fields is None or dtype.names is None:
        return dtype
    return np.dtype(dtype.fields[dtype.names[0]][0])


def type_string(elem: ElementType | int) -> str:
    """The name used in ONNX type strings: ``float`` in ``tensor(float)``."""
    return _TYPE_STRINGS[ElementType(elem)]


def from_type_string(text: str) -> ElementType:
    """The element type of ``"float"`` or ``"tensor(float)"``."""
    name = text[7:-1] if text.startswith("tensor(") and text.endswith(")") else text
    try:
        return _FROM_TYPE_STRING[name]
    except KeyError:
        raise ValueError(f"unknown element type {text!r}") from None


def element_type_of(value: Any) -> ElementType:
    """The ONNX element type of a numpy dtype, array, Python type or type name."""
    if isinstance(value, ElementType):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return ElementType(int(value))
    if isinstance(value, str) and (value in _FROM_TYPE_STRING or value.startswith("tensor(")):
        return from_type_string(value)
    if value is str or value is bytes:
        return ElementType.STRING
    dtype = (
        value.dtype
        if hasattr(value, "dtype") and not isinstance(value, (type, np.dtype))
        else value
    )
    try:
        dtype = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"cannot read {value!r} as an element type") from exc
    if dtype.names is not None and len(dtype.names) == 1 and dtype.names[0] in _FROM_STRUCTURED:
        return _FROM_STRUCTURED[dtype.names[0]]
    ml_elem = _ml_dtypes_element(dtype)
    if ml_elem is not None:
        return ml_elem  # an ml_dtypes dtype (bfloat16, float8_* ...)
    if dtype.kind in "US":
        return ElementType.STRING
    normalized = dtype.newbyteorder("<") if dtype.byteorder == ">" else dtype
    if normalized.byteorder == "=":
        normalized = normalized.newbyteorder("<")
    try:
        return _FROM_NUMPY[normalized]
    except KeyError:
        try:
            return _FROM_NUMPY[dtype]
        except KeyError:
            raise TypeError(f"numpy dtype {dtype} has no ONNX element type") from None
