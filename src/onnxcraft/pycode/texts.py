"""The texts of a model the generated code must write as Python str.

A file may hold names and strings that are not UTF-8 (onnxcraft reads them as bytes); the DSL
takes names, domains and doc strings as str, so such a model cannot be written as code. This
finds the first one, before any code is written, and names where it is.
"""

from __future__ import annotations

from onnxcraft.errors import CodeGenerationError
from onnxcraft.ir import Graph, Model, Node

__all__ = ["check_texts"]


def _text(where: str, value: object) -> None:
    if not isinstance(value, str):
        raise CodeGenerationError(
            f"to_python: {where} is not UTF-8 text ({value!r:.60}); the DSL takes it as a str"
        )


def check_texts(model: Model) -> None:
    for field in ("producer_name", "producer_version", "domain", "doc_string"):
        _text(f"the model's {field}", getattr(model, field))
    for key, value in model.metadata.items():
        _text("a metadata key", key)
        _text(f"metadata {key!r}", value)
    for domain in model.opset_imports:
        _text("an opset import's domain", domain)
    _graph("the main graph", model.graph)
    for function in model.functions:
        where = f"function {function.name!r}"
        _text("a function's name", function.name)
        _text(f"{where}: its domain", function.domain)
        for name in [*function.inputs, *function.outputs, *function.attributes]:
            _text(f"{where}: a value or attribute name", name)
        for node in function.nodes:
            _node(where, node)


def _graph(where: str, graph: Graph) -> None:
    _text(f"{where}: its name", graph.name)
    _text(f"{where}: its doc string", graph.doc_string)
    for info in [*graph.inputs, *graph.outputs]:
        _text(f"{where}: an input or output name", info.name)
    for tensor in graph.initializers:
        _text(f"{where}: an initializer name", tensor.name)
    for node in graph.nodes:
        _node(where, node)


def _node(where: str, node: Node) -> None:
    for name in [node.op_type, node.domain, node.name, *node.inputs, *node.outputs]:
        _text(f"{where}: a node's operator, domain or value name", name)
    for attr in node.attributes:
        _text(f"{where}: node {node.name!r}: an attribute name", attr.name)
        _text(f"{where}: node {node.name!r}: an attribute reference", attr.ref)
        if attr.type == "GRAPH" and isinstance(attr.value, Graph):
            _graph(f"{where} > node {node.name!r}", attr.value)
        elif attr.type == "GRAPHS":
            for body in attr.value or []:
                _graph(f"{where} > node {node.name!r}", body)
