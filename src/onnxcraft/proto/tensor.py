"""TensorProto <-> numpy, and Sequence/Map/Optional protos <-> Python values.

Arrays use onnxcraft's representation of element types (see :mod:`onnxcraft.dtypes`): numpy
dtypes where numpy has the type, one-field structured dtypes holding the bits (or the value, for
the 2- and 4-bit integers) otherwise, and object arrays of ``str`` for strings. Reading accepts
both raw_data and the typed ``*_data`` fields; writing always uses raw_data (little-endian),
packing 4-, 2- and 6-bit types the way the standard stores them.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any

import numpy as np

from onnxcraft.dtypes import (
    ElementType,
    as_representation,
    element_type_of,
    numpy_dtype,
    storage_dtype,
)
from onnxcraft.errors import TensorConversionError
from onnxcraft.proto.external_data import external_range, map_tensor_bytes, read_tensor_bytes
from onnxcraft.proto.onnx_pb2 import (
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)

__all__ = [
    "from_array",
    "raw_data",
    "from_sparse",
    "from_value",
    "sparse_to_dense",
    "to_array",
    "to_sparse",
    "to_value",
    "write_array",
]

_FOUR_BIT = {ElementType.INT4, ElementType.UINT4, ElementType.FLOAT4E2M1}
_TWO_BIT = {ElementType.INT2, ElementType.UINT2}
_SIX_BIT = {ElementType.FLOAT6E2M3, ElementType.FLOAT6E3M2}
_SIGNED_SMALL = {ElementType.INT4: 4, ElementType.INT2: 2}
_ELEMENT_TYPES = {int(e): e for e in ElementType}

# Which typed field holds each element type when raw_data is not used.
_INT32_FIELD = {
    ElementType.INT32,
    ElementType.INT16,
    ElementType.INT8,
    ElementType.UINT16,
    ElementType.UINT8,
    ElementType.BOOL,
    ElementType.FLOAT16,
    ElementType.BFLOAT16,
    ElementType.FLOAT8E4M3FN,
    ElementType.FLOAT8E4M3FNUZ,
    ElementType.FLOAT8E5M2,
    ElementType.FLOAT8E5M2FNUZ,
    ElementType.FLOAT8E8M0,
    ElementType.FLOAT6E2M3,
    ElementType.FLOAT6E3M2,
    ElementType.INT4,
    ElementType.UINT4,
    ElementType.FLOAT4E2M1,
    ElementType.INT2,
    ElementType.UINT2,
}


def _stored_as_is() -> dict[np.dtype[Any], ElementType]:
    """The numpy dtypes that already are their element type's raw_data encoding (little-endian,
    one element per slot): an array of one is written with a single ``tobytes()``."""
    found: dict[np.dtype[Any], ElementType] = {}
    for elem in ElementType:
        if elem in (ElementType.UNDEFINED, ElementType.STRING):
            continue
        if elem in _FOUR_BIT or elem in _TWO_BIT or elem in _SIX_BIT:
            continue
        dtype = numpy_dtype(elem)
        if dtype.names is None and dtype.byteorder in "<|=":
            found[dtype] = elem
    return found


_AS_STORED = _stored_as_is()


def _label(tensor: TensorProto) -> str:
    return f"tensor {tensor.name!r}" if tensor.name else "tensor"


# -- packing of sub-byte types -----------------------------------------------------------------


def _unpack(data: np.ndarray, elem: ElementType, count: int, what: str) -> np.ndarray:
    data = data.astype(np.uint8, copy=False).reshape(-1)
    if elem in _FOUR_BIT:
        values = np.empty(data.size * 2, np.uint8)
        values[0::2] = data & 0x0F
        values[1::2] = data >> 4
        bits = 4
    elif elem in _TWO_BIT:
        values = np.empty(data.size * 4, np.uint8)
        for k in range(4):
            values[k::4] = (data >> (2 * k)) & 0x03
        bits = 2
    else:  # 6-bit: four values in three bytes
        groups = -(-data.size // 3)
        padded = np.zeros(groups * 3, np.uint8)
        padded[: data.size] = data
        b0, b1, b2 = padded[0::3], padded[1::3], padded[2::3]
        values = np.empty((groups, 4), np.uint8)
        values[:, 0] = b0 & 0x3F
        values[:, 1] = (b0 >> 6) | ((b1 & 0x0F) << 2)
        values[:, 2] = (b1 >> 4) | ((b2 & 0x03) << 4)
        values[:, 3] = b2 >> 2
        values = values.reshape(-1)
        bits = 6
    if values.size < count:
        raise TensorConversionError(
            f"{what}: {data.size} bytes of packed {bits}-bit data hold {values.size} values, "
            f"the shape needs {count}"
        )
    values = values[:count]
    width = _SIGNED_SMALL.get(elem)
    if width is not None:  # sign-extend
        signed = values.astype(np.int8)
        return np.where(signed >= (1 << (width - 1)), signed - (1 << width), signed).astype(np.int8)
    return values


def _pack(values: np.ndarray, elem: ElementType) -> bytes:
    flat: np.ndarray = values.reshape(-1).astype(np.int16).astype(np.uint8)
    if elem in _FOUR_BIT:
        flat = flat & 0x0F
        if flat.size % 2:
            flat = np.concatenate([flat, np.zeros(1, np.uint8)])
        return bytes(flat[0::2] | (flat[1::2] << 4))
    if elem in _TWO_BIT:
        flat = flat & 0x03
        pad = -flat.size % 4
        if pad:
            flat = np.concatenate([flat, np.zeros(pad, np.uint8)])
        packed = flat[0::4] | (flat[1::4] << 2) | (flat[2::4] << 4) | (flat[3::4] << 6)
        return bytes(packed)
    flat = flat & 0x3F  # 6-bit
    count = flat.size
    pad = -count % 4
    if pad:
        flat = np.concatenate([flat, np.zeros(pad, np.uint8)])
    quads = flat.reshape(-1, 4)
    out = np.empty((quads.shape[0], 3), np.uint8)
    out[:, 0] = quads[:, 0] | (quads[:, 1] << 6)
    out[:, 1] = (quads[:, 1] >> 2) | (quads[:, 2] << 4)
    out[:, 2] = (quads[:, 2] >> 4) | (quads[:, 3] << 2)
    return bytes(out.reshape(-1)[: math.ceil(count * 6 / 8)])


# -- TensorProto -> numpy ------------------------------------------------------------------------


def to_array(tensor: TensorProto, *, base_dir: str | os.PathLike[str] | None = None) -> np.ndarray:
    """The numpy value of a TensorProto, in onnxcraft's representation of its element type."""
    if not isinstance(tensor, TensorProto):
        if hasattr(tensor, "SerializeToString"):
            tensor = TensorProto.FromString(tensor.SerializeToString())
        else:
            raise TensorConversionError(
                f"to_array: expected a TensorProto, got {type(tensor).__name__}"
            )
    try:
        elem = ElementType(tensor.data_type)
    except ValueError:
        raise TensorConversionError(
            f"{_label(tensor)}: unknown data_type {tensor.data_type}"
        ) from None
    if elem == ElementType.UNDEFINED:
        raise TensorConversionError(f"{_label(tensor)}: data_type is not set")
    if tensor.HasField("segment"):
        raise TensorConversionError(f"{_label(tensor)}: segmented tensors are not supported")
    dims = tuple(int(d) for d in tensor.dims)
    if any(d < 0 for d in dims):
        raise TensorConversionError(f"{_label(tensor)}: negative dims {list(dims)}")
    count = math.prod(dims)
    if tensor.data_location == TensorProto.EXTERNAL:
        if base_dir is None:
            raise TensorConversionError(
                f"{_label(tensor)}: its data is in an external file; pass base_dir (the model's "
                f"folder) or load the model with oc.load"
            )
        return _from_raw(tensor, elem, dims, count, read_tensor_bytes(tensor, base_dir))
    if elem == ElementType.STRING:
        if len(tensor.string_data) != count:
            raise TensorConversionError(
                f"{_label(tensor)}: {len(tensor.string_data)} strings for shape {list(dims)}"
            )
        values = [s.decode("utf-8", errors="surrogateescape") for s in tensor.string_data]
        array = np.empty(count, dtype=object)
        array[:] = values
        return array.reshape(dims)
    if tensor.HasField("raw_data"):
        return _from_raw(tensor, elem, dims, count, tensor.raw_data)
    return _from_typed(tensor, elem, dims, count)


def mapped_array(tensor: TensorProto, base_dir: str | os.PathLike[str]) -> np.ndarray:
    """The value of a tensor with external data, memory-mapped from its file where its bytes
    already are the array (any type but strings and the packed 2-, 4- and 6-bit ones, on a
    little-endian machine): read-only, and nothing is read until it is used. Otherwise, or
    when the length does not fit the shape, the bytes are read as ``to_array`` reads them.
    """
    elem = _ELEMENT_TYPES.get(tensor.data_type)
    packed = _FOUR_BIT | _TWO_BIT | _SIX_BIT | {ElementType.STRING, ElementType.UNDEFINED}
    if elem is None or elem in packed or sys.byteorder != "little" or tensor.HasField("segment"):
        return to_array(tensor, base_dir=base_dir)
    dims = tuple(int(d) for d in tensor.dims)
    storage = storage_dtype(elem)
    where = external_range(tensor, base_dir)
    if any(d < 0 for d in dims) or where.length != math.prod(dims) * storage.itemsize:
        return to_array(tensor, base_dir=base_dir)  # which says what is wrong
    return map_tensor_bytes(where).view(storage).view(numpy_dtype(elem)).reshape(dims)


def _from_raw(
    tensor: TensorProto, elem: ElementType, dims: tuple[int, ...], count: int, raw: bytes
) -> np.ndarray:
    dtype = numpy_dtype(elem)
    if elem in _FOUR_BIT or elem in _TWO_BIT or elem in _SIX_BIT:
        values = _unpack(np.frombuffer(raw, np.uint8), elem, count, _label(tensor))
        return values.view(dtype).reshape(dims)
    storage = storage_dtype(elem)
    expected = count * storage.itemsize
    if len(raw) != expected:
        raise TensorConversionError(
            f"{_label(tensor)}: raw_data has {len(raw)} bytes, shape {list(dims)} of "
            f"{ElementType(elem).name.lower()} needs {expected}"
        )
    array = np.frombuffer(raw, dtype=storage.newbyteorder("<") if storage.itemsize > 1 else storage)
    array = array.astype(storage, copy=True)  # native order, writeable, owns its memory
    return array.view(dtype).reshape(dims)


def _from_typed(
    tensor: TensorProto, elem: ElementType, dims: tuple[int, ...], count: int
) -> np.ndarray:
    dtype = numpy_dtype(elem)
    storage = storage_dtype(elem)
    if elem in _INT32_FIELD:
        raw = np.asarray(tensor.int32_data, dtype=np.int64)
        if elem in _FOUR_BIT or elem in _TWO_BIT:
            values = _unpack(raw.astype(np.uint8), elem, count, _label(tensor))
            return values.view(dtype).reshape(dims)
        if elem in _SIX_BIT:
            raw = raw & 0x3F
        if storage.kind == "f":
            # float16 in int32_data: each entry holds the value's bits, not the value
            data = raw.astype(np.dtype(f"u{storage.itemsize}")).view(storage)
        elif storage.kind in "ub":
            data = raw.astype(np.uint32).astype(storage)
        else:
            data = raw.astype(storage)
    elif elem == ElementType.INT64:
        data = np.asarray(tensor.int64_data, dtype=np.int64)
    elif elem in (ElementType.UINT32, ElementType.UINT64):
        data = np.asarray(tensor.uint64_data, dtype=np.uint64).astype(storage)
    elif elem == ElementType.FLOAT:
        data = np.asarray(tensor.float_data, dtype=np.float32)
    elif elem == ElementType.DOUBLE:
        data = np.asarray(tensor.double_data, dtype=np.float64)
    elif elem in (ElementType.COMPLEX64, ElementType.COMPLEX128):
        parts = tensor.float_data if elem == ElementType.COMPLEX64 else tensor.double_data
        if len(parts) != 2 * count:  # real and imaginary part of each element
            raise TensorConversionError(
                f"{_label(tensor)}: {len(parts)} parts for shape {list(dims)} ({count} "
                f"complex elements need {2 * count})"
            )
        data = np.asarray(parts, dtype=np.float32 if elem == ElementType.COMPLEX64 else np.float64)
        data = data.view(dtype)
    else:
        raise TensorConversionError(f"{_label(tensor)}: no typed field for {elem.name}")
    if data.size != count:
        raise TensorConversionError(
            f"{_label(tensor)}: {data.size} values for shape {list(dims)} ({count} elements)"
        )
    return data.view(dtype).reshape(dims)


# -- numpy -> TensorProto ------------------------------------------------------------------------


def _as_element_array(
    array: Any, elem_type: ElementType | int | None
) -> tuple[np.ndarray, ElementType]:
    """``array`` as a numpy array in onnxcraft's representation, and its element type."""
    if not isinstance(array, np.ndarray):
        array = np.asarray(array)
        if array.dtype.kind == "U":
            array = array.astype(object)
    array = as_representation(array)  # an ml_dtypes array: the same values, our dtype
    try:
        elem = element_type_of(array.dtype) if elem_type is None else ElementType(elem_type)
    except (TypeError, ValueError) as exc:
        raise TensorConversionError(f"from_array: unsupported dtype {array.dtype}") from exc
    return array, elem


def _raw_encoding(array: np.ndarray, elem: ElementType) -> memoryview | bytes:
    """The raw_data bytes of a non-string ``array``: a view of its memory when that already is
    the encoding (contiguous, little-endian, not packed), so large weights are not copied."""
    storage = storage_dtype(elem)
    bits = array.view(storage) if array.dtype.names else array
    if bits.dtype != storage:
        if array.dtype.names is None and element_type_of(array.dtype) != elem:
            raise TensorConversionError(
                f"from_array: array of dtype {array.dtype} cannot be stored as {elem.name}"
            )
        bits = bits.astype(storage)
    if elem in _FOUR_BIT or elem in _TWO_BIT or elem in _SIX_BIT:
        return _pack(bits, elem)
    little = bits.astype(storage.newbyteorder("<"), copy=False) if storage.itemsize > 1 else bits
    return np.ascontiguousarray(little).reshape(-1).view(np.uint8).data


def raw_data(array: Any, elem_type: ElementType | int | None = None) -> memoryview | bytes:
    """The bytes ``from_array`` would store in raw_data, without copying what needs no change.

    A memoryview shares the array's memory: it reflects later changes to the array.
    """
    array, elem = _as_element_array(array, elem_type)
    if elem == ElementType.STRING:
        raise TensorConversionError("from_array: string tensors have no raw_data encoding")
    return _raw_encoding(array, elem)


def from_array(
    array: Any, name: str | None = None, *, elem_type: ElementType | int | None = None
) -> TensorProto:
    """A TensorProto holding ``array`` (numpy array, or anything numpy.asarray accepts)."""
    tensor = TensorProto()
    write_array(tensor, array, name, elem_type=elem_type)
    return tensor


def write_array(
    tensor: TensorProto,
    array: Any,
    name: str | None = None,
    *,
    elem_type: ElementType | int | None = None,
) -> None:
    """Fill the empty ``tensor`` with ``array``, as :func:`from_array` would make it.

    Writing into the message a graph already holds saves building a second one and copying
    it in (a model's build writes one tensor per constant).
    """
    if type(array) is np.ndarray:
        elem = _AS_STORED.get(array.dtype)
        if elem is not None and (elem_type is None or elem_type == elem):
            if name:
                tensor.name = name
            tensor.data_type = int(elem)
            tensor.dims.extend(array.shape)
            tensor.raw_data = array.tobytes()  # the encoding itself, in C order
            return
    array, elem = _as_element_array(array, elem_type)
    if name:
        tensor.name = name
    tensor.data_type = int(elem)
    tensor.dims.extend(array.shape)
    if elem != ElementType.STRING:
        tensor.raw_data = bytes(_raw_encoding(array, elem))
        return
    for value in array.reshape(-1):
        if isinstance(value, bytes):
            tensor.string_data.append(value)
        elif isinstance(value, str):
            tensor.string_data.append(value.encode("utf-8", errors="surrogateescape"))
        else:
            raise TensorConversionError(
                f"from_array: a string tensor holds a {type(value).__name__}: {value!r}"
            )


# -- sequences, maps, optionals ------------------------------------------------------------------


def to_value(message: Any) -> Any:
    """A Tensor/Sequence/Map/Optional proto as ndarray / list / dict / None (or its element)."""
    if isinstance(message, TensorProto):
        return to_array(message)
    if isinstance(message, SequenceProto):
        kind = message.elem_type
        if kind == SequenceProto.TENSOR:
            return [to_array(t) for t in message.tensor_values]
        if kind == SequenceProto.SEQUENCE:
            return [to_value(s) for s in message.sequence_values]
        if kind == SequenceProto.MAP:
            return [to_value(m) for m in message.map_values]
        if kind == SequenceProto.OPTIONAL:
            return [to_value(o) for o in message.optional_values]
        if kind == SequenceProto.SPARSE_TENSOR:
            return [to_sparse(s) for s in message.sparse_tensor_values]
        return []
    if isinstance(message, MapProto):
        if message.key_type == TensorProto.STRING:
            keys: list[Any] = [k.decode("utf-8") for k in message.string_keys]
        else:
            keys = [int(k) for k in message.keys]
        values = to_value(message.values)
        if len(keys) != len(values):
            raise TensorConversionError(
                f"map {message.name!r}: {len(keys)} keys, {len(values)} values"
            )
        return dict(zip(keys, values))
    if isinstance(message, OptionalProto):
        kind = message.elem_type
        if kind == OptionalProto.TENSOR:
            return to_array(message.tensor_value)
        if kind == OptionalProto.SEQUENCE:
            return to_value(message.sequence_value)
        if kind == OptionalProto.MAP:
            return to_value(message.map_value)
        if kind == OptionalProto.OPTIONAL:
            return to_value(message.optional_value)
        if kind == OptionalProto.SPARSE_TENSOR:
            return to_sparse(message.sparse_tensor_value)
        return None
    raise TensorConversionError(f"to_value: unsupported message {type(message).__name__}")


def from_value(value: Any, *, name: str | None = None, optional: bool = False) -> Any:
    """The proto for a Python value: ndarray -> TensorProto, list -> SequenceProto,
    dict -> MapProto; with ``optional=True`` (or for None) an OptionalProto around it."""
    if optional or value is None:
        message = OptionalProto()
        if name:
            message.name = name
        if value is None:
            message.elem_type = OptionalProto.UNDEFINED
        elif isinstance(value, list):
            message.elem_type = OptionalProto.SEQUENCE
            message.sequence_value.CopyFrom(from_value(value))
        elif isinstance(value, dict):
            message.elem_type = OptionalProto.MAP
            message.map_value.CopyFrom(from_value(value))
        else:
            message.elem_type = OptionalProto.TENSOR
            message.tensor_value.CopyFrom(from_array(value))
        return message
    if isinstance(value, list):
        sequence = SequenceProto()
        if name:
            sequence.name = name
        if not value:
            sequence.elem_type = SequenceProto.TENSOR
        elif all(isinstance(v, list) for v in value):
            sequence.elem_type = SequenceProto.SEQUENCE
            sequence.sequence_values.extend(from_value(v) for v in value)
        elif all(isinstance(v, dict) for v in value):
            sequence.elem_type = SequenceProto.MAP
            sequence.map_values.extend(from_value(v) for v in value)
        else:
            sequence.elem_type = SequenceProto.TENSOR
            sequence.tensor_values.extend(from_array(v) for v in value)
        return sequence
    if isinstance(value, dict):
        mapping = MapProto()
        if name:
            mapping.name = name
        keys = list(value)
        if keys and all(isinstance(k, str) for k in keys):
            mapping.key_type = TensorProto.STRING
            mapping.string_keys.extend(k.encode("utf-8") for k in keys)
        elif all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in keys):
            mapping.key_type = TensorProto.INT64
            mapping.keys.extend(int(k) for k in keys)
        else:
            raise TensorConversionError("from_value: map keys must be all str or all int")
        mapping.values.CopyFrom(from_value([value[k] for k in keys]))
        return mapping
    return from_array(value, name)


# -- sparse tensors -----------------------------------------------------------------------------


def to_sparse(message: SparseTensorProto) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """(values, indices, dims) of a SparseTensorProto; indices are int64, [NNZ] or [NNZ, rank]."""
    values = to_array(message.values)
    indices = to_array(message.indices).astype(np.int64)
    dims = tuple(int(d) for d in message.dims)
    if indices.ndim not in (1, 2) or indices.shape[0] != values.size:
        raise TensorConversionError(
            f"sparse tensor: indices of shape {list(indices.shape)} "
            f"do not match {values.size} values"
        )
    return values, indices, dims


def from_sparse(
    values: Any, indices: Any, dims: Any, *, name: str | None = None
) -> SparseTensorProto:
    values = np.asarray(values)
    indices = np.asarray(indices, dtype=np.int64)
    dims = tuple(int(d) for d in dims)
    if indices.ndim not in (1, 2) or indices.shape[0] != values.reshape(-1).size:
        raise TensorConversionError(
            f"from_sparse: {values.size} values need indices of shape [{values.size}] or "
            f"[{values.size}, {len(dims)}], got {list(indices.shape)}"
        )
    message = SparseTensorProto()
    message.values.CopyFrom(from_array(values.reshape(-1), name))
    message.indices.CopyFrom(from_array(indices))
    message.dims.extend(dims)
    return message


def sparse_to_dense(message: SparseTensorProto) -> np.ndarray:
    values, indices, dims = to_sparse(message)
    dense = np.zeros(dims, dtype=values.dtype)
    flat = values.reshape(-1)
    if indices.ndim == 1:
        dense.reshape(-1)[indices] = flat
    else:
        dense[tuple(indices.T)] = flat
    return dense
