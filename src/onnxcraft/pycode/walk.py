"""Walking a model's graphs: which names they read, which nodes their outputs need, which
types they declare for their outputs."""

from __future__ import annotations

from onnxcraft.ir import Graph, Node
from onnxcraft.types import ValueType

__all__ = ["bodies", "declared_outputs", "live_nodes", "referenced_names"]


def referenced_names(graph: Graph) -> set[str]:
    """Every value name a graph's nodes read or its outputs give, its subgraphs' included."""
    found = {o.name for o in graph.outputs}
    for node in graph.nodes:
        found.update(node.inputs)
        for body in bodies(node):
            found |= referenced_names(body)
    return found


def bodies(node: Node) -> list[Graph]:
    result: list[Graph] = []
    for attr in node.attributes:
        if attr.type == "GRAPH" and attr.value is not None:
            result.append(attr.value)
        elif attr.type == "GRAPHS":
            result.extend(attr.value or [])
    return result


def live_nodes(graph: Graph) -> list[Node]:
    """The nodes some output of ``graph`` depends on (the DSL builds only those)."""
    live = {o.name for o in graph.outputs}
    kept: list[Node] = []
    for node in reversed(graph.nodes):
        if any(name and name in live for name in node.outputs):
            kept.append(node)
            live.update(node.inputs)
            for body in bodies(node):
                live |= referenced_names(body)
    kept.reverse()
    return kept


def declared_outputs(graph: Graph, found: dict[str, ValueType]) -> None:
    for info in graph.outputs:
        if info.type is not None:
            found[info.name] = info.type
    for node in graph.nodes:
        for body in bodies(node):
            declared_outputs(body, found)
