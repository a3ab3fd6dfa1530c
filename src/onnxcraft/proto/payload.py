"""How a message stores its value, checked where the fields are still visible.

Reading a model into the IR keeps only the field an attribute's type or a tensor's element
type says to read, so a value stored in another field would be read as a default (an INT
attribute whose value sits in ``floats`` reads as 0). The reader asks these functions what is
wrong with the storage and keeps the answer on the IR object, for ``oc.check`` to report.

onnx.proto: an AttributeProto has a ``type`` and exactly the one field of that type set; a
TensorProto keeps its values in ``raw_data`` or in the one typed field its ``data_type`` uses
(or externally, with a relative ``location``), as many values as its dims hold.
"""

from __future__ import annotations

import functools
import math
from pathlib import PurePosixPath, PureWindowsPath

from onnxcraft.dtypes import ElementType, storage_dtype
from onnxcraft.proto import AttributeProto, TensorProto

__all__ = ["attribute_storage_problem", "external_size_problem", "tensor_storage_problem"]

# The value field of each attribute type.
_ATTRIBUTE_FIELDS = {
    AttributeProto.FLOAT: "f",
    AttributeProto.INT: "i",
    AttributeProto.STRING: "s",
    AttributeProto.TENSOR: "t",
    AttributeProto.GRAPH: "g",
    AttributeProto.SPARSE_TENSOR: "sparse_tensor",
    AttributeProto.TYPE_PROTO: "tp",
    AttributeProto.FLOATS: "floats",
    AttributeProto.INTS: "ints",
    AttributeProto.STRINGS: "strings",
    AttributeProto.TENSORS: "tensors",
    AttributeProto.GRAPHS: "graphs",
    AttributeProto.SPARSE_TENSORS: "sparse_tensors",
    AttributeProto.TYPE_PROTOS: "type_protos",
}
_VALUE_FIELDS = frozenset(_ATTRIBUTE_FIELDS.values())

_TENSOR_FIELDS = frozenset(
    ("raw_data", "float_data", "int32_data", "string_data", "int64_data", "double_data")
) | {"uint64_data"}
_E = ElementType
# The typed field each element type uses, and how many of its entries one element takes.
_TYPED_FIELD = {
    **dict.fromkeys((_E.FLOAT, _E.COMPLEX64), "float_data"),
    **dict.fromkeys((_E.DOUBLE, _E.COMPLEX128), "double_data"),
    _E.INT64: "int64_data",
    **dict.fromkeys((_E.UINT32, _E.UINT64), "uint64_data"),
    _E.STRING: "string_data",
}
_PER_ELEMENT = {_E.COMPLEX64: 2, _E.COMPLEX128: 2}
# Elements per byte of the packed sub-byte types (4, 2 and 6 bits).
_PACKED_BITS = {_E.INT4: 4, _E.UINT4: 4, _E.FLOAT4E2M1: 4, _E.INT2: 2, _E.UINT2: 2}
_PACKED_BITS.update({_E.FLOAT6E2M3: 6, _E.FLOAT6E3M2: 6})
_ELEMENTS = {int(e): e for e in ElementType}


def attribute_storage_problem(proto: AttributeProto) -> str:
    """What is wrong with where ``proto`` keeps its value ("" when nothing)."""
    # One call lists the fields set (a repeated field only when it has entries).
    used = [field.name for field, _ in proto.ListFields() if field.name in _VALUE_FIELDS]
    if proto.ref_attr_name:
        if used:
            return f"refers to {proto.ref_attr_name!r} but also holds a value in {used[0]!r}"
        return ""
    if not proto.HasField("type"):
        found = f"its value is in {used[0]!r}" if used else "it has no value"
        return f"has no type (required since IR version 2; {found})"
    expected = _ATTRIBUTE_FIELDS.get(proto.type)
    if expected is None:
        return f"has the unknown type {proto.type}"
    name = AttributeProto.AttributeType.Name(proto.type)
    stray = [f for f in used if f != expected]
    if stray:
        return (
            f"is declared {name}, whose value belongs in {expected!r}, but holds a value in "
            f"{', '.join(repr(f) for f in stray)}"
        )
    if expected in ("t", "g", "tp") and expected not in used:
        return f"is declared {name} but {expected!r} is not set"
    return ""


def tensor_storage_problem(proto: TensorProto) -> str:
    """What is wrong with how ``proto`` stores its data ("" when nothing)."""
    dims = list(proto.dims)
    if any(d < 0 for d in dims):
        return f"has negative dims {dims}"
    fields = proto.ListFields()  # one call; an empty raw_data does not count as data
    used = [field.name for field, value in fields if field.name in _TENSOR_FIELDS and len(value)]
    if proto.data_location == TensorProto.EXTERNAL:
        return _external_problem(proto, used)
    if proto.data_type not in _ELEMENTS or proto.data_type == 0:
        return ""  # the element type rule reports it
    elem = _ELEMENTS[proto.data_type]
    count = math.prod(dims)
    if count == 0:
        return f"has dims {dims} (no elements) but holds data in {used[0]!r}" if used else ""
    if not used:
        return f"has dims {dims} ({count} elements) but holds no data"
    if len(used) > 1:
        return f"holds data in {len(used)} fields ({', '.join(used)}); only one is allowed"
    field = used[0]
    if field == "raw_data":
        return _raw_problem(proto, elem, dims, count)
    expected_field = _TYPED_FIELD.get(elem, "int32_data")
    if field != expected_field:
        return f"holds {elem.name} values in {field!r}; that type uses {expected_field!r}"
    bits = _PACKED_BITS.get(elem)
    if bits is None:
        entries = count * _PER_ELEMENT.get(elem, 1)
    elif bits == 6:
        entries = count  # one 6-bit value per int32 entry
    else:
        entries = -(-count * bits // 8)
    found = len(getattr(proto, field))
    if found != entries:
        return f"has {found} entries in {field!r}; dims {dims} of {elem.name} need {entries}"
    return ""


def _raw_problem(proto: TensorProto, elem: ElementType, dims: list[int], count: int) -> str:
    if elem == _E.STRING:
        return "is a STRING tensor with data in 'raw_data'; strings go in 'string_data'"
    expected = _byte_size(elem, count)
    found = len(proto.raw_data)
    if found != expected:
        return f"has {found} bytes of raw_data; dims {dims} of {elem.name} need {expected}"
    return ""


def external_size_problem(proto: TensorProto, length: int) -> str:
    """What is wrong with ``length`` external bytes for ``proto``'s dims ("" when nothing)."""
    dims = list(proto.dims)
    elem = _ELEMENTS.get(proto.data_type)
    if elem is None or elem in (_E.UNDEFINED, _E.STRING) or any(d < 0 for d in dims):
        return tensor_storage_problem(proto)
    expected = _byte_size(elem, math.prod(dims))
    if length != expected:
        return f"has {length} bytes of external data; dims {dims} of {elem.name} need {expected}"
    return ""


def _byte_size(elem: ElementType, count: int) -> int:
    bits = _PACKED_BITS.get(elem)
    return count * storage_dtype(elem).itemsize if bits is None else -(-count * bits // 8)


@functools.lru_cache(maxsize=256)
def _escapes(location: str) -> bool:
    """Whether ``location`` leaves the model's folder (cached: a model's tensors share a few)."""
    parts = PurePosixPath(location.replace("\\", "/")).parts
    return (
        PurePosixPath(location).is_absolute()
        or PureWindowsPath(location).is_absolute()
        or bool(PureWindowsPath(location).drive)
        or ".." in parts
    )


def _external_problem(proto: TensorProto, used: list[str]) -> str:
    if used:
        return f"is stored externally but also holds data in {used[0]!r}"
    entries = {e.key: e.value for e in proto.external_data}
    location = entries.get("location")
    if not location:
        return "is stored externally but external_data has no 'location'"
    if _escapes(location):
        return (
            f"has the external data location {location!r}, which is not a path inside the "
            f"model's folder"
        )
    for key in ("offset", "length"):
        text = entries.get(key)
        if text is not None and not (text.isascii() and text.isdigit()):
            return f"has external data {key} {text!r}, expected a non-negative integer"
    return ""
