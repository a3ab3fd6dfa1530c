"""onnxcraft's IR printed in the ONNX text syntax (the grammar of onnx's printer and parser).

    <ir_version: 10, opset_import: ["" : 21]>
    main_graph (float[N,4] X) => (float[N,3] Y)
       <float[4,3] W = {...}>
    {
       Y = MatMul (X, W)
    }

Everything the model holds that the grammar can write is written: the header, the graph's
typed inputs and outputs, initializers and value_info, nodes with every kind of attribute,
local functions (their opset imports, attributes with defaults, typed values). Where onnx's
syntax has no spelling, this module chooses one that onnxcraft's parser reads
(``docs/reading-models.md``): sparse tensors, quoted domains and operator names. Doc strings
and the metadata of graphs, nodes and values have no place in the syntax and are not written.

This module reads only the IR (no protobuf), so the package root can register it cheaply as
what ``str()`` of an IR model shows (:func:`onnxcraft.ir.register_printer`).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import OnnxcraftError
from onnxcraft.text.elide import ELIDED_MARK, SMALL_TENSOR, elided_text
from onnxcraft.text.syntax import (
    ATTRIBUTE_TYPE_NAMES,
    ELEMENT_NAMES,
    UNDEFINED_ELEMENT,
    attribute_name_text,
    is_plain_name,
    name_text,
    quote,
)
from onnxcraft.text.values import items_text
from onnxcraft.types import Map, Optional, Sequence, Shape, SparseTensor, Tensor, ValueType

__all__ = ["attribute_text", "text_of", "type_text"]

_STEP = "   "  # one level of indentation, as onnx's printer indents


def _float32_text(value: float) -> str:
    """A float attribute (stored as float32) in its shortest decimal form."""
    single = np.float32(value)
    if np.isnan(single):
        return "-nan" if np.signbit(single) else "nan"
    return str(single)


def _elem_text(elem: ElementType | None) -> str:
    return UNDEFINED_ELEMENT if elem is None else ELEMENT_NAMES[elem]


def _dim_text(dim: int | str | None) -> str:
    if dim is None:
        return "?"
    if isinstance(dim, int):
        return str(dim)
    return name_text(dim)


def _shape_text(shape: Shape) -> str:
    # A scalar has no brackets; an unknown rank is "[]", as onnx's printer writes them.
    if shape is None:
        return "[]"
    return "[" + ",".join(_dim_text(d) for d in shape) + "]" if shape else ""


def type_text(value: ValueType | None) -> str:
    """A value type as the text writes it: ``float[N,3]``, ``seq(int64[])``, ``map(string,
    float)``, ``optional(...)``, ``sparse_tensor(float[10])``; "" for no type."""
    if value is None:
        return ""
    if isinstance(value, Tensor):
        return _elem_text(value.elem_type) + _shape_text(value.shape)
    if isinstance(value, SparseTensor):
        return f"sparse_tensor({_elem_text(value.elem_type)}{_shape_text(value.shape)})"
    if isinstance(value, Sequence):
        return f"seq({type_text(value.elem)})"
    if isinstance(value, Optional):
        return f"optional({type_text(value.elem)})"
    if isinstance(value, Map):
        return f"map({ELEMENT_NAMES[value.key]}, {type_text(value.value)})"
    raise OnnxcraftError(f"to_text: a value type must be an onnxcraft type, got {value!r}")


def _value_info_text(info: ir.ValueInfo) -> str:
    typed = type_text(info.type)
    return f"{typed} {name_text(info.name)}" if typed else name_text(info.name)


def _names(names: Iterable[str]) -> str:
    return ", ".join(name_text(n) for n in names)


class _Printer:
    def __init__(self, full_tensors: bool) -> None:
        self.full = full_tensors

    # -- tensors ------------------------------------------------------------------------------

    def tensor(self, data: ir.TensorData, *, named: bool = True, initializer: bool = False) -> str:
        """``float[2,3] name = {values}`` (initializer) or ``float[2,3] name {values}``."""
        head = _elem_text(data.elem_type if data.elem_type != ElementType.UNDEFINED else None)
        if data.dims:
            head += "[" + ",".join(str(d) for d in data.dims) + "]"
        if named and data.name:
            head += " " + name_text(data.name)
        if initializer:
            head += " ="
        return f"{head} {self.tensor_values(data)}"

    def tensor_values(self, data: ir.TensorData) -> str:
        try:
            array = data.array()
        except (OnnxcraftError, ValueError) as exc:  # data missing or malformed
            if not self.full:  # what str() shows: the model, and why the values are not
                return f"{{{ELIDED_MARK} values not readable: {exc} {ELIDED_MARK}}}"
            raise OnnxcraftError(
                f"to_text: cannot read the values of tensor {data.name!r}: {exc}"
            ) from exc
        if not self.full and array.size > SMALL_TENSOR:
            return elided_text(array, data.elem_type)
        return "{" + items_text(array, data.elem_type) + "}"

    def sparse(self, data: ir.SparseData, name: str = "") -> str:
        """``sparse_tensor(float[3,4]) [name] {values tensor, indices tensor}``: onnx's syntax
        has none; the parts are written as tensor literals."""
        head = f"sparse_tensor({_elem_text(data.values.elem_type)}{_shape_text(data.dims)})"
        if name:
            head += f" {name_text(name)} ="
        return f"{head} {{{self.tensor(data.values)}, {self.tensor(data.indices)}}}"

    # -- attributes ---------------------------------------------------------------------------

    def attribute(self, attr: ir.Attribute, indent: str) -> str:
        kind = ATTRIBUTE_TYPE_NAMES.get(attr.type)
        if kind is None:
            raise OnnxcraftError(
                f"to_text: attribute {attr.name!r} has the type {attr.type!r}, which the text "
                f"cannot write"
            )
        head = f"{attribute_name_text(attr.name)}: {kind} = "
        if attr.ref:
            return f"{head}@{name_text(attr.ref)}"
        return head + self.attribute_value(attr.type, attr.value, indent)

    def attribute_value(self, kind: str, value: object, indent: str) -> str:
        if kind == "FLOAT":
            return _float32_text(float(value))  # type: ignore[arg-type]
        if kind == "INT":
            return str(int(value))  # type: ignore[call-overload]
        if kind == "STRING":
            return quote(_as_text(value))
        if kind == "TENSOR":
            assert isinstance(value, ir.TensorData)
            return self.tensor(value)
        if kind == "GRAPH":
            assert isinstance(value, ir.Graph)
            return self.graph(value, indent + _STEP, attribute=True)
        if kind == "SPARSE_TENSOR":
            assert isinstance(value, ir.SparseData)
            return self.sparse(value)
        if kind == "TYPE_PROTO":
            return type_text(value)  # type: ignore[arg-type]
        assert isinstance(value, list)
        single = kind[:-1]
        return "[" + ", ".join(self.attribute_value(single, v, indent) for v in value) + "]"

    def attributes(self, attributes: list[ir.Attribute], indent: str) -> str:
        return "<" + ", ".join(self.attribute(a, indent) for a in attributes) + ">"

    # -- nodes, graphs, functions -------------------------------------------------------------

    def node(self, node: ir.Node, indent: str) -> str:
        parts = [indent]
        if node.name:
            parts.append(f"[{name_text(node.name)}] ")
        parts.append(_names(node.outputs))
        parts.append(" = " if node.outputs else "= ")
        if node.domain:
            domain = node.domain
            plain = all(is_plain_name(p) for p in domain.split("."))
            parts.append((domain if plain else quote(domain)) + ".")
        parts.append(node.op_type if is_plain_name(node.op_type) else quote(node.op_type))
        if node.overload:
            parts.append(":" + name_text(node.overload))
        # onnx's printer puts attributes holding graphs after the inputs, so that a node's
        # inputs are read before its bodies.
        has_body = any(a.type in ("GRAPH", "GRAPHS") and not a.ref for a in node.attributes)
        attributes = self.attributes(node.attributes, indent) if node.attributes else ""
        if attributes and not has_body:
            parts.append(" " + attributes)
        parts.append(f" ({_names(node.inputs)})")
        if attributes and has_body:
            parts.append(" " + attributes)
        return "".join(parts)

    def nodes(self, nodes: list[ir.Node], indent: str) -> str:
        inner = indent + _STEP
        lines = [self.node(n, inner) for n in nodes]
        return "{\n" + "".join(line + "\n" for line in lines) + indent + "}"

    def graph(self, graph: ir.Graph, indent: str = "", *, attribute: bool = False) -> str:
        # A graph attribute's name must be a plain identifier for onnx's parser to see a
        # graph; onnxcraft's parser, told the attribute's type, also reads a quoted one.
        name = graph.name if attribute and is_plain_name(graph.name) else name_text(graph.name)
        inputs = ", ".join(_value_info_text(v) for v in graph.inputs)
        outputs = ", ".join(_value_info_text(v) for v in graph.outputs)
        head = f"{name} ({inputs}) => ({outputs})"
        entries = [self.tensor(t, initializer=True) for t in graph.initializers]
        entries += [self.sparse(s, s.values.name) for s in graph.sparse_initializers]
        entries += [_value_info_text(v) for v in graph.value_info]
        inner = indent + _STEP
        if entries:
            body = ",\n".join(inner + _STEP + e for e in entries)
            head += f"\n{inner}<\n{body}\n{inner}>"
        return f"{head}\n{indent}{self.nodes(graph.nodes, indent)}"

    def function(self, function: ir.Function) -> str:
        header = [f"{_STEP}domain: {quote(function.domain)}"]
        if function.overload:
            header.append(f"{_STEP}overload: {quote(function.overload)}")
        opsets = ", ".join(f"{quote(d)} : {v}" for d, v in function.opset_imports.items())
        header.append(f"{_STEP}opset_import: [{opsets}]")
        if function.doc_string:
            header.append(f"{_STEP}doc_string: {quote(function.doc_string)}")
        parts = ["<\n" + ",\n".join(header) + "\n>\n", name_text(function.name)]
        attributes = [name_text(a) for a in function.attributes]
        attributes += [self.attribute(a, "") for a in function.attribute_defaults]
        if attributes:
            parts.append(" <" + ", ".join(attributes) + ">")
        parts.append(f" ({_names(function.inputs)}) => ({_names(function.outputs)})")
        if function.value_info:
            infos = ",\n".join(_STEP + _STEP + _value_info_text(v) for v in function.value_info)
            parts.append(f"\n{_STEP}<\n{infos}\n{_STEP}>")
        parts.append("\n" + self.nodes(function.nodes, ""))
        return "".join(parts)

    def model(self, model: ir.Model) -> str:
        header = [f"{_STEP}ir_version: {model.ir_version}"]
        opsets = ", ".join(f"{quote(d)} : {v}" for d, v in model.opset_imports.items())
        header.append(f"{_STEP}opset_import: [{opsets}]")
        for key, text in (
            ("producer_name", model.producer_name),
            ("producer_version", model.producer_version),
            ("domain", model.domain),
        ):
            if text:
                header.append(f"{_STEP}{key}: {quote(text)}")
        if model.model_version:
            header.append(f"{_STEP}model_version: {model.model_version}")
        if model.doc_string:
            header.append(f"{_STEP}doc_string: {quote(model.doc_string)}")
        if model.metadata:
            props = ", ".join(f"{quote(k)}: {quote(v)}" for k, v in model.metadata.items())
            header.append(f"{_STEP}metadata_props: [{props}]")
        parts = ["<\n" + ",\n".join(header) + "\n>\n", self.graph(model.graph)]
        parts += ["\n\n" + self.function(f) for f in model.functions]
        return "".join(parts) + "\n"


def _as_text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="surrogateescape")
    return str(value)


def attribute_text(attr: ir.Attribute, *, full_tensors: bool = False) -> str:
    return _Printer(full_tensors).attribute(attr, "")


def text_of(
    value: ir.Model | ir.Graph | ir.Function | ir.Node, *, full_tensors: bool = False
) -> str:
    """The text of any IR object that has one (what ``str()`` of an IR model shows)."""
    printer = _Printer(full_tensors)
    if isinstance(value, ir.Model):
        return printer.model(value)
    if isinstance(value, ir.Graph):
        return printer.graph(value) + "\n"
    if isinstance(value, ir.Function):
        return printer.function(value) + "\n"
    return printer.node(value, "")


ir.register_printer(text_of)
