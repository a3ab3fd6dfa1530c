"""The public functions of the text form: ``oc.to_text`` and ``oc.parse`` and friends."""

from __future__ import annotations

from typing import Any

from onnxcraft import ir
from onnxcraft.errors import ArgumentError
from onnxcraft.io import model_ir
from onnxcraft.proto import FunctionProto, GraphProto, ModelProto, NodeProto
from onnxcraft.text import parser
from onnxcraft.text.printer import text_of

__all__ = ["parse", "parse_function", "parse_graph", "parse_node", "to_text"]


def to_text(value: Any, *, full_tensors: bool = False) -> str:
    """``value`` in the ONNX text syntax (the grammar of onnx's printer and parser).

    ``value`` is any model (onnxcraft's or onnx's ModelProto, an IR model, a model's bytes or
    the path of a model file), an IR graph, function or node (``onnxcraft.ir``), or a
    GraphProto, FunctionProto or NodeProto (onnxcraft's or onnx's). Tensors of
    more than 16 elements are elided (``{... 9408 values: min ..., max ..., mean ... ...}``,
    which no parser reads as values) unless ``full_tensors=True``.
    """
    if not isinstance(full_tensors, bool):
        raise ArgumentError(
            f"to_text: full_tensors must be a bool, got {type(full_tensors).__name__}"
        )
    if isinstance(value, (ir.Graph, ir.Function, ir.Node)):
        return text_of(value, full_tensors=full_tensors)
    part = _message_part(value)
    if part is not None:
        return text_of(part, full_tensors=full_tensors)
    return text_of(model_ir(value, what="to_text"), full_tensors=full_tensors)


def _message_part(value: Any) -> ir.Graph | ir.Function | ir.Node | None:
    """A GraphProto, FunctionProto or NodeProto (either package's, told by its type name) read
    into the IR through a model holding it; None for anything else."""
    kind = getattr(getattr(value, "DESCRIPTOR", None), "full_name", "")
    if not isinstance(kind, str) or not kind.endswith(("GraphProto", "FunctionProto", "NodeProto")):
        return None
    holder = ModelProto()
    data = value.SerializeToString()
    if kind.endswith("GraphProto"):
        holder.graph.CopyFrom(GraphProto.FromString(data))
        return model_ir(holder, what="to_text").graph
    if kind.endswith("FunctionProto"):
        holder.functions.add().CopyFrom(FunctionProto.FromString(data))
        return model_ir(holder, what="to_text").functions[0]
    holder.graph.node.add().CopyFrom(NodeProto.FromString(data))
    return model_ir(holder, what="to_text").graph.nodes[0]


def parse(text: str) -> ir.Model:
    """Read a model written in the ONNX text syntax; an :class:`onnxcraft.ir.Model`, which
    every onnxcraft API takes and ``SerializeToString()`` encodes. Bad text raises
    :class:`~onnxcraft.errors.TextSyntaxError` with the line, column, what was expected and
    what was found."""
    return parser.parse_model(text)


def parse_graph(text: str) -> ir.Graph:
    """Read a graph (``name (inputs) => (outputs) {nodes}``) into an :class:`onnxcraft.ir.Graph`."""
    return parser.parse_graph(text)


def parse_function(text: str) -> ir.Function:
    """Read a function (``<domain: ..., opset_import: [...]> name (x) => (y) {nodes}``)."""
    return parser.parse_function(text)


def parse_node(text: str) -> ir.Node:
    """Read one node (``Y = Add (A, B)``) into an :class:`onnxcraft.ir.Node`."""
    return parser.parse_node(text)
