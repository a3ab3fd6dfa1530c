"""A tensor type read straight from a TypeProto's bytes, in its common form.

A model inferred before carries a value_info entry for every value; inference reads each
distinct type once, from its encoding (:mod:`onnxcraft.proto.encoded_graph` hands the bytes
over). Parsed into a TypeProto and read field by field, a type of four dims costs about
3.5 µs, most of it protobuf's accessors; the bytes of the common form (a tensor_type with its
element type and a shape of dim_values, as any writer lays them out) read in about a third
of that. Anything else (a denotation, a field twice or out of order, a long varint or
symbol) is left to protobuf: :func:`tensor_type_from_bytes` then answers None.
"""

from __future__ import annotations

from onnxcraft.dtypes import ElementType
from onnxcraft.types import Tensor, shared_tensor

__all__ = ["DIM_ENTRIES", "tensor_type_from_bytes"]

_ELEMENTS = {int(e): e for e in ElementType if e != ElementType.UNDEFINED}
_INT64_LIMIT = 1 << 63  # a negative dim_value encodes as a varint at least this large

# Tags (field number << 3 | wire type) of the fields read here, as onnx.proto numbers them.
_TENSOR_TYPE = 0x0A  # TypeProto.tensor_type: field 1, length-delimited
_ELEM_TYPE = 0x08  # TypeProto.Tensor.elem_type: field 1, varint
_SHAPE = 0x12  # TypeProto.Tensor.shape: field 2, length-delimited
_DIM = 0x0A  # TensorShapeProto.dim: field 1, length-delimited
_DIM_VALUE = 0x08  # TensorShapeProto.Dimension.dim_value: field 1, varint
_DIM_PARAM = 0x12  # TensorShapeProto.Dimension.dim_param: field 2, length-delimited


# The dim entries (TensorShapeProto.dim: its tag, its length, the Dimension) of the dim_values
# below 4096, as protobuf writes them, by dim (the inference writer's, proto/inference.py) and
# by their bytes (this reader's, with the empty Dimension's): facts of the encoding, made once
# when inference is first used (about 1 ms), their bytes written out. The commonest dims are
# then written, and read, with one look-up each.
DIM_ENTRIES: dict[int, bytes] = {d: bytes((_DIM, 2, _DIM_VALUE, d)) for d in range(128)}
DIM_ENTRIES.update(
    {d: bytes((_DIM, 3, _DIM_VALUE, d & 0x7F | 0x80, d >> 7)) for d in range(128, 4096)}
)
_DIMS_BY_ENTRY: dict[bytes, int | None] = {entry: d for d, entry in DIM_ENTRIES.items()}
_DIMS_BY_ENTRY[bytes((_DIM, 0))] = None
_NOT_COMMON = object()  # (None is an answer: an unknown dim)


def tensor_type_from_bytes(data: bytes) -> Tensor | None:
    """The tensor type encoded in ``data`` (a TypeProto's bytes), as
    ``type_from_proto(TypeProto.FromString(data))`` gives it, when the encoding is a
    tensor_type of an element type and, if any, a shape of dims that are each a dim_value, a
    dim_param of UTF-8 or empty (each length below 128 and every field in field order);
    None otherwise."""
    size = len(data)
    # TypeProto: its tensor_type and nothing else, the message within 127 bytes (every
    # length read here is one byte below 0x80: a longer one is a varint of several bytes)
    if size < 4 or size > 129 or data[0] != _TENSOR_TYPE or data[1] + 2 != size:
        return None
    if data[2] != _ELEM_TYPE:
        return None
    elem = data[3]
    if elem >= 0x80:
        return None
    if size == 4:  # no shape: the rank unknown
        return shared_tensor(_ELEMENTS.get(elem), None)
    if data[4] != _SHAPE or data[5] + 6 != size:
        return None
    dims: list[int | str | None] = []
    i = 6
    entries = _DIMS_BY_ENTRY
    while i < size:
        # (a dim by value below 4096 or an empty one: its whole entry is a key of the table)
        end = i + 2 + data[i + 1]
        dim = entries.get(data[i:end], _NOT_COMMON)
        if dim is not _NOT_COMMON:
            dims.append(dim)  # type: ignore[arg-type]
            i = end
            continue
        if data[i] != _DIM:
            return None
        length = data[i + 1]
        end = i + 2 + length
        if length >= 0x80 or end > size:
            return None
        if end == i + 2:  # an empty Dimension: neither a value nor a symbol
            dims.append(None)
            i = end
            continue
        if data[i + 2] == _DIM_PARAM:
            start = i + 4
            if data[i + 3] >= 0x80 or start + data[i + 3] != end:
                return None  # (a long symbol, or more fields in the Dimension)
            try:
                dims.append(data[start:end].decode() or None)  # ("" is no symbol)
            except UnicodeDecodeError:
                return None  # (protobuf says what it makes of it)
            i = end
            continue
        if data[i + 2] != _DIM_VALUE:
            return None  # (a denotation: protobuf reads it)
        value = shift = 0
        j = i + 3
        while j < end:
            byte = data[j]
            value |= (byte & 0x7F) << shift
            shift += 7
            j += 1
            if byte < 0x80:
                break
        else:
            return None  # (the varint runs past its Dimension)
        if j != end or value >= _INT64_LIMIT:
            return None  # (more fields in the Dimension, or a negative dim: protobuf says so)
        dims.append(value)
        i = end
    return shared_tensor(_ELEMENTS.get(elem), tuple(dims))
