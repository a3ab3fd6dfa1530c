"""Parsing a model file one initializer at a time.

``ModelProto.ParseFromString`` needs the whole encoding as one bytes object, so loading a file
holds its weights twice: once as the file's bytes, once in the parsed messages. ``read_model``
walks the wire format itself down to the graph's initializers and parses each initializer
from its own slice of the file; everything else is gathered and parsed in one call. The
parsed model is the one ``ParseFromString`` gives: protobuf defines parsing concatenated
encodings as merging them, so parsing the fields in groups, in their order, changes nothing
(tests compare both on every node-test model).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from onnxcraft.errors import ProtoError
from onnxcraft.proto.onnx_pb2 import GraphProto, ModelProto

__all__ = ["read_model"]

# Field numbers (proto/onnx.proto): ModelProto.graph, GraphProto.initializer.
_MODEL_GRAPH = 7
_GRAPH_INITIALIZER = 5
_VARINT, _FIXED64, _LENGTH_DELIMITED, _FIXED32 = 0, 1, 2, 5  # wire types
_HEADER_BYTES = 20  # a tag and a length: two varints of at most 10 bytes


def _fields(handle: IO[bytes], start: int, end: int) -> Iterator[tuple[int, int, int, int, int]]:
    """The fields of the message encoded in ``handle[start:end]``, read header by header:
    (number, wire type, start of the field, start of its payload, end of the field)."""
    position = start
    while position < end:
        handle.seek(position)
        header = handle.read(min(_HEADER_BYTES, end - position))
        tag, used = _varint(header, 0)
        number, wire = tag >> 3, tag & 7
        if number == 0:
            raise ProtoError("a field numbered 0 (corrupt data)")
        if wire == _VARINT:
            payload, field_end = position + used, position + _varint(header, used)[1]
        elif wire == _LENGTH_DELIMITED:
            length, size = _varint(header, used)
            payload, field_end = position + size, position + size + length
        elif wire in (_FIXED64, _FIXED32):
            payload = position + used
            field_end = payload + (8 if wire == _FIXED64 else 4)
        else:  # groups (wire types 3 and 4) are not used by ONNX; 6 and 7 do not exist
            raise ProtoError(f"field {number} has wire type {wire}, which ONNX never uses")
        if field_end > end:
            raise ProtoError("a field runs past the end of its message (truncated data)")
        yield number, wire, position, payload, field_end
        position = field_end


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


def _merge(message: Any, encoding: bytes | bytearray) -> None:
    try:
        message.MergeFromString(bytes(encoding))
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

    def flush(self) -> bytearray:
        if self.end > self.start:
            self.handle.seek(self.start)
            self.data += self.handle.read(self.end - self.start)
        self.start = self.end
        return self.data


def _read_graph(handle: IO[bytes], start: int, end: int, graph: GraphProto) -> None:
    rest = _Spans(handle)
    for number, wire, field_start, payload, field_end in _fields(handle, start, end):
        if number == _GRAPH_INITIALIZER and wire == _LENGTH_DELIMITED:
            handle.seek(payload)
            _merge(graph.initializer.add(), handle.read(field_end - payload))
        else:
            rest.add(field_start, field_end)
    _merge(graph, rest.flush())


def read_model(handle: IO[bytes], size: int) -> ModelProto:
    """The ModelProto encoded in the first ``size`` bytes of the seekable binary ``handle``.

    Raises ProtoError for data that is not a protobuf encoding or is cut off.
    """
    model = ModelProto()
    rest = _Spans(handle)
    for number, wire, field_start, payload, field_end in _fields(handle, 0, size):
        if number == _MODEL_GRAPH and wire == _LENGTH_DELIMITED:
            _read_graph(handle, payload, field_end, model.graph)
        else:
            rest.add(field_start, field_end)
    _merge(model, rest.flush())
    return model
