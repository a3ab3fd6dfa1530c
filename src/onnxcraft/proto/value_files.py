"""Values stored one per ``.pb`` file, as the ONNX backend tests store their inputs and outputs:
a serialized TensorProto, SequenceProto, MapProto or OptionalProto, which one the value's
declared type says (the file itself does not)."""

from __future__ import annotations

from typing import Any

from google.protobuf.message import DecodeError

from onnxcraft.errors import TensorConversionError
from onnxcraft.proto.onnx_pb2 import MapProto, OptionalProto, SequenceProto, TensorProto
from onnxcraft.proto.tensor import from_value, to_value
from onnxcraft.types import Map, Optional, Sequence, ValueType

__all__ = ["parse_value", "serialize_value"]


def _message_for(value_type: ValueType | None) -> Any:
    if isinstance(value_type, Sequence):
        return SequenceProto()
    if isinstance(value_type, Map):
        return MapProto()
    if isinstance(value_type, Optional):
        return OptionalProto()
    return TensorProto()


def parse_value(data: bytes, value_type: ValueType | None, *, label: str) -> Any:
    """The value serialized in ``data``: an array for a tensor (or an unknown type), a list, a
    dict or an optional's element, as ``value_type`` declares; ``label`` names the file."""
    message = _message_for(value_type)
    kind = type(message).__name__
    try:
        message.ParseFromString(data)
    except DecodeError as exc:
        raise TensorConversionError(f"{label}: not a serialized {kind} ({exc})") from None
    try:
        return to_value(message)
    except TensorConversionError as exc:
        raise TensorConversionError(f"{label}: {exc}") from None


def serialize_value(value: Any, *, name: str) -> bytes:
    """The bytes of ``value`` (an array, list or dict) as a named proto message."""
    return bytes(from_value(value, name=name).SerializeToString())
