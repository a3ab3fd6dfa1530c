"""Parsing a model file one initializer at a time.

``ModelProto.ParseFromString`` needs the whole encoding as one bytes object, so loading a file
holds its weights twice: once as the file's bytes, once in the parsed messages. ``read_model``
walks the wire format itself down to the graph's initializers and parses each large initializer
from its own slice of the file; small ones are parsed in batches of about a megabyte, and
everything else is gathered and parsed in one call. The
parsed model is the one ``ParseFromString`` gives: protobuf defines parsing concatenated
encodings as merging them, so parsing the fields in groups, in their order, changes nothing
(tests compare both on every node-test model).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

import numpy as np

from onnxcraft.errors import ProtoError
from onnxcraft.proto.onnx_pb2 import ModelProto

__all__ = ["read_model"]

# Field numbers (proto/onnx.proto): ModelProto.graph, GraphProto.initializer.
_MODEL_GRAPH = 7
_GRAPH_INITIALIZER = 5
_VARINT, _FIXED64, _LENGTH_DELIMITED, _START_GROUP, _END_GROUP, _FIXED32 = 0, 1, 2, 3, 4, 5
_HEADER_BYTES = 20  # a tag and a length: two varints of at most 10 bytes
_TAG_BYTES = 5  # protobuf refuses a tag longer than 5 bytes or above 2**32 - 1
_BATCH_BYTES = 1 << 20  # initializers smaller than this are parsed together, this much at once


def _fields(handle: IO[bytes], start: int, end: int) -> Iterator[tuple[int, int, int, int, int]]:
    """The fields of the message encoded in ``handle[start:end]``, read header by header:
    (number, wire type, start of the field, start of its payload, end of the field)."""
    position = start
    while position < end:
        number, wire, payload, field_end = _field(handle, position, end)
        if wire == _END_GROUP:  # protobuf refuses an end of group outside its group
            raise ProtoError(f"field {number} ends a group that was never started")
        if wire == _START_GROUP:
            field_end = _group_end(handle, number, field_end, end)
        yield number, wire, position, payload, field_end
        position = field_end


def _field(handle: IO[bytes], position: int, end: int) -> tuple[int, int, int, int]:
    """The field starting at ``position``: number, wire type, start of its payload and end
    (for a group's start tag, the end of the tag: its fields follow it)."""
    handle.seek(position)
    header = handle.read(min(_HEADER_BYTES, end - position))
    tag, used = _varint(header, 0)
    if used > _TAG_BYTES or tag >> 32:
        raise ProtoError(f"a field tag of {used} bytes (value {tag}) is not valid protobuf")
    number, wire = tag >> 3, tag & 7
    if number == 0:
        raise ProtoError("a field numbered 0 (corrupt data)")
    payload = position + used
    if wire == _VARINT:
        field_end = position + _varint(header, used)[1]
    elif wire == _LENGTH_DELIMITED:
        length, size = _varint(header, used)
        payload, field_end = position + size, position + size + length
    elif wire in (_FIXED64, _FIXED32):
        field_end = payload + (8 if wire == _FIXED64 else 4)
    elif wire in (_START_GROUP, _END_GROUP):
        field_end = payload
    else:  # wire types 6 and 7 do not exist
        raise ProtoError(f"field {number} has wire type {wire}, which protobuf does not define")
    if field_end > end:
        raise ProtoError("a field runs past the end of its message (truncated data)")
    return number, wire, payload, field_end


def _group_end(handle: IO[bytes], number: int, position: int, end: int) -> int:
    """The end of the group ``number`` whose fields start at ``position``: just after its
    matching end tag, past any groups nested in it (walked without recursion: the nesting
    is the file's to choose; protobuf limits it when the piece is parsed)."""
    open_groups = [number]
    while open_groups:
        if position >= end:
            raise ProtoError(f"group {open_groups[-1]} is never ended (truncated data)")
        inner, wire, _, position = _field(handle, position, end)
        if wire == _START_GROUP:
            open_groups.append(inner)
        elif wire == _END_GROUP and inner != open_groups.pop():
            raise ProtoError(f"field {inner} ends a group that was never started")
    return position


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """The varint starting at ``data[at]`` and the offset just after it."""
    value = shift = 0
    for index in range(at, min(len(data), at + 10)):
        byte = data[index]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, index + 1
        shift += 7
    raise ProtoError("a varint is cut off (truncated data)")


def _merge(message: Any, encoding: bytes | bytearray | memoryview) -> None:
    try:
        message.MergeFromString(encoding)  # protobuf takes any buffer
    except Exception as exc:  # protobuf's DecodeError
        raise ProtoError(f"a {type(message).__name__} does not parse: {exc}") from exc


class _Spans:
    """The bytes of the fields not parsed on their own, read in as few reads as possible."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.data = bytearray()
        self.start = self.end = 0

    def add(self, start: int, end: int) -> None:
        if start != self.end:
            self.flush()
            self.start = start
        self.end = end

    @property
    def size(self) -> int:
        return len(self.data) + self.end - self.start

    def flush(self) -> bytearray:
        if self.end > self.start:
            self.handle.seek(self.start)
            self.data += self.handle.read(self.end - self.start)
        self.start = self.end
        return self.data

    def take(self) -> bytearray:
        """The bytes gathered so far, which are then forgotten."""
        data = self.flush()
        self.data = bytearray()
        return data


def _header(number: int, length: int) -> bytes:
    """The tag and length in front of a length-delimited field."""
    out = bytearray()
    for value in (number << 3 | _LENGTH_DELIMITED, length):
        while value > 0x7F:
            out.append(value & 0x7F | 0x80)
            value >>= 7
        out.append(value)
    return bytes(out)


def _read_initializer(handle: IO[bytes], start: int, end: int, model: ModelProto) -> None:
    """Parse one initializer into ``model`` as a graph field holding only it: protobuf merges
    it into the graph (appending it to the initializers) at the depth it has in the file. The
    bytes are read in after that small prefix, so the tensor's data is never copied."""
    inner = _header(_GRAPH_INITIALIZER, end - start)
    prefix = _header(_MODEL_GRAPH, len(inner) + end - start) + inner
    # Not a bytearray: numpy leaves the memory as it is rather than zeroing it first.
    encoding = np.empty(len(prefix) + end - start, np.uint8).data
    encoding[: len(prefix)] = prefix
    handle.seek(start)
    read_into = handle.readinto  # type: ignore[attr-defined]
    if read_into(encoding[len(prefix) :]) != end - start:
        raise ProtoError("the file ended while an initializer was read (truncated data)")
    _merge(model, encoding)


def _merge_graph_fields(model: ModelProto, fields: bytearray) -> None:
    """Parse encoded graph fields into ``model`` as a graph field of it: protobuf merges them
    into the graph at the depth they have in the file."""
    _merge(model, _header(_MODEL_GRAPH, len(fields)) + fields)


def _read_graph(handle: IO[bytes], start: int, end: int, model: ModelProto) -> None:
    rest, batch = _Spans(handle), _Spans(handle)
    for number, wire, field_start, payload, field_end in _fields(handle, start, end):
        if number != _GRAPH_INITIALIZER or wire != _LENGTH_DELIMITED:
            rest.add(field_start, field_end)
        elif field_end - field_start < _BATCH_BYTES:
            batch.add(field_start, field_end)
            if batch.size >= _BATCH_BYTES:
                _merge_graph_fields(model, batch.take())
        else:  # initializers keep their order: those batched before go first
            if batch.size:
                _merge_graph_fields(model, batch.take())
            _read_initializer(handle, payload, field_end, model)
    if batch.size:
        _merge_graph_fields(model, batch.take())
    _merge_graph_fields(model, rest.take())  # even empty: a graph field makes a graph


def read_model(handle: IO[bytes], size: int) -> ModelProto:
    """The ModelProto encoded in the first ``size`` bytes of the seekable binary ``handle``.

    Raises ProtoError for data that is not a protobuf encoding or is cut off, exactly when
    ``ModelProto.ParseFromString`` would refuse the same bytes.
    """
    model = ModelProto()
    rest = _Spans(handle)
    for number, wire, field_start, payload, field_end in _fields(handle, 0, size):
        if number == _MODEL_GRAPH and wire == _LENGTH_DELIMITED:
            _read_graph(handle, payload, field_end, model)
        else:
            rest.add(field_start, field_end)
    _merge(model, rest.flush())
    return model
