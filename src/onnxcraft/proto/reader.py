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
# Wire types and the fixed sizes of those that have one.
_VARINT, _FIXED64, _LENGTH_DELIMITED, _FIXED32 = 0, 1, 2, 5
_HEADER_BYTES = 20  # a tag and a length: two varints of at most 10 bytes


class _Fields:
    """The fields of one message encoded in ``handle[start:end]``, read header by header."""

    def __init__(self, handle: IO[bytes], start: int, end: int) -> None:
        self.handle = handle
        self.start = start
        self.end = end

    def __iter__(self) -> Iterator[tuple[int, int, int, int, int]]:
        """(number, wire type, start of the field, start of its payload, end of the field)."""
        position = self.start
        while position < self.end:
            self.handle.seek(position)
            header = self.handle.read(min(_HEADER_BYTES, self.end - position))
            tag, used = _varint(header, 0)
            number, wire = tag >> 3, tag & 7
            if wire == _VARINT:
                _, size = _varint(header, used)
                payload, end = position + used, position + size
            elif wire == _LENGTH_DELIMITED:
                length, size = _varint(header, used)
                payload, end = position + size, position + size + length
            elif wire in (_FIXED64, _FIXED32):
                payload = position + used
                end = payload + (8 if wire == _FIXED64 else 4)
            else:  # groups (wire types 3 and 4) are not used by ONNX; 6 and 7 do not exist
                raise ProtoError(f"field {number} has wire type {wire}, which ONNX never uses")
            if number == 0 or end > self.end:
                raise ProtoError("a field runs past the end of its message (truncated data)")
            yield number, wire, position, payload, end
            position = end


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
    for number, wire, field_start, payload, field_end in _Fields(handle, start, end):
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
    for number, wire, field_start, payload, field_end in _Fields(handle, 0, size):
        if number == _MODEL_GRAPH and wire == _LENGTH_DELIMITED:
            _read_graph(handle, payload, field_end, model.graph)
        else:
            rest.add(field_start, field_end)
    _merge(model, rest.flush())
    return model
