"""A model's main graph parsed with node attributes and value types left as bytes, for
inference.

Inference keys each distinct attribute list by its encoding (alike nodes share one list), and
reads each distinct value type once, by its encoding (a model inferred before has a
value_info entry for every value, sharing a few types). From a parsed NodeProto or
ValueInfoProto those encodings cost a ``SerializeToString()`` each: about half of reading a
CNN's nodes, and two thirds of reading its value_info. Parsed from the model's bytes with the
message types below, which know of a model only its graph, of a graph only its nodes and
value_info, and declare a node's attributes and a value's type as ``bytes``, the encodings
come out of protobuf's one parse. The types are wire-compatible views of ``ModelProto``,
``GraphProto``, ``NodeProto`` and ``ValueInfoProto`` (same field numbers, same proto2 string
handling); every field they leave out is kept aside as an unknown field, so parsing copies the
whole input once: :func:`encoded_graph` declines inputs whose size is not mostly nodes
(weights inline), where that copy costs more than the encodings save.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError

__all__ = ["BYTES_PER_NODE", "encoded_graph"]

# Parsing costs about a nanosecond per 12 bytes here and saves about 2 µs a node with
# attributes: worth it up to ~24 KB a node. Half that, as inline weights also fault in pages.
BYTES_PER_NODE = 12 * 1024

_FIELD = descriptor_pb2.FieldDescriptorProto


def _model_view() -> tuple[Any, ...]:
    """The message classes reading a model's main-graph nodes and value_info, node attributes
    and value types as bytes: Node, Value, Graph, Model."""
    file = descriptor_pb2.FileDescriptorProto(
        name="onnxcraft/encoded_graph.proto", package="onnxcraft_encoded", syntax="proto2"
    )
    messages = {
        # name: [(field, number, repeated, type, message type)], numbers as in onnx.proto
        "Node": [
            ("input", 1, True, _FIELD.TYPE_STRING, ""),
            ("output", 2, True, _FIELD.TYPE_STRING, ""),
            ("name", 3, False, _FIELD.TYPE_STRING, ""),
            ("op_type", 4, False, _FIELD.TYPE_STRING, ""),
            ("attribute", 5, True, _FIELD.TYPE_BYTES, ""),
            ("domain", 7, False, _FIELD.TYPE_STRING, ""),
        ],
        "Value": [
            ("name", 1, False, _FIELD.TYPE_STRING, ""),
            ("type", 2, False, _FIELD.TYPE_BYTES, ""),
            ("doc_string", 3, False, _FIELD.TYPE_STRING, ""),
            ("metadata_props", 4, True, _FIELD.TYPE_BYTES, ""),
        ],
        "Graph": [
            ("node", 1, True, _FIELD.TYPE_MESSAGE, ".onnxcraft_encoded.Node"),
            ("value_info", 13, True, _FIELD.TYPE_MESSAGE, ".onnxcraft_encoded.Value"),
        ],
        "Model": [("graph", 7, False, _FIELD.TYPE_MESSAGE, ".onnxcraft_encoded.Graph")],
    }
    for name, fields in messages.items():
        message = file.message_type.add(name=name)
        for field, number, repeated, kind, type_name in fields:
            entry = message.field.add(
                name=field,
                number=number,
                label=_FIELD.LABEL_REPEATED if repeated else _FIELD.LABEL_OPTIONAL,
                type=kind,
            )
            if type_name:
                entry.type_name = type_name
    pool = descriptor_pool.DescriptorPool()  # its own pool: no clash with onnx.proto's names
    pool.Add(file)
    # Every message class, not only the model's: protobuf holds the classes of submessages
    # weakly and would make them again for each parse (three classes created and dropped
    # per model read, 25 objects left for the cyclic collector).
    return tuple(
        message_factory.GetMessageClass(pool.FindMessageTypeByName(f"onnxcraft_encoded.{name}"))
        for name in messages
    )


_VIEW_CLASSES = _model_view()
_MODEL_VIEW = _VIEW_CLASSES[-1]  # (the messages' last: Model)


def encoded_graph(data: bytes, node_count: int) -> Any | None:
    """The main graph of the model encoded in ``data`` (already parsed as a ModelProto with
    ``node_count`` main-graph nodes), as a view: its ``node`` entries each with ``op_type``,
    ``input``, ``output``, ``domain``, ``name`` and ``attribute``, a list of each
    AttributeProto's bytes; its ``value_info`` entries each with ``name``, ``type`` (the
    TypeProto's bytes, ``HasField`` telling an absent one), ``doc_string`` and
    ``metadata_props`` (bytes). None when the input is mostly weights (see
    :data:`BYTES_PER_NODE`) or reads otherwise."""
    if not node_count or len(data) > BYTES_PER_NODE * node_count:
        return None
    try:
        graph = _MODEL_VIEW.FromString(data).graph
    except DecodeError:  # (the bytes parsed as a ModelProto, so they parse as its view)
        return None
    return graph if len(graph.node) == node_count else None
