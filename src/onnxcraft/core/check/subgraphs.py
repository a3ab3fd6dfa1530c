"""Rules tying a control-flow node to its subgraphs (the specs of If, Loop, Scan, SequenceMap):
a branch or body has as many inputs and outputs as the node's inputs and outputs imply."""

from __future__ import annotations

from onnxcraft.core.check.problems import Problems
from onnxcraft.ir import Graph, Node

__all__ = ["check_subgraph_arity"]


def check_subgraph_arity(node: Node, since: int, place: str, problems: Problems) -> None:
    """``since``: the operator version the node resolves to (Scan-8 differs from Scan-9)."""
    if node.op_type == "If":
        for branch in ("then_branch", "else_branch"):
            graph = _graph(node, branch)
            if graph is not None:
                _expect(place, branch, "outputs", len(graph.outputs), len(node.outputs), problems)
    elif node.op_type == "Loop":
        body = _graph(node, "body")
        if body is None:
            return
        carried = max(len(node.inputs) - 2, 0)
        # body(iteration, condition, carried...) -> (condition, carried..., scan outputs...)
        _expect(place, "body", "inputs", len(body.inputs), 2 + carried, problems)
        if len(body.outputs) < 1 + carried or len(body.outputs) - 1 != len(node.outputs):
            problems.report(
                place,
                "subgraph",
                f"Loop body has {len(body.outputs)} outputs; with {carried} carried values and "
                f"{len(node.outputs)} node outputs it needs {1 + len(node.outputs)} "
                f"(at least {1 + carried})",
            )
    elif node.op_type == "SequenceMap":
        body = _graph(node, "body")
        if body is not None:
            _expect(place, "body", "inputs", len(body.inputs), len(node.inputs), problems)
            _expect(place, "body", "outputs", len(body.outputs), len(node.outputs), problems)
    elif node.op_type == "Scan":
        body = _graph(node, "body")
        if body is None:
            return
        # Scan-8 takes sequence_lens first; from Scan-9 every input is a state or scan input.
        inputs = len(node.inputs) - 1 if since < 9 else len(node.inputs)
        _expect(place, "body", "inputs", len(body.inputs), inputs, problems)
        _expect(place, "body", "outputs", len(body.outputs), len(node.outputs), problems)


def _graph(node: Node, name: str) -> Graph | None:
    attr = node.attribute(name)
    return attr.value if attr is not None and isinstance(attr.value, Graph) else None


def _expect(
    place: str, which: str, kind: str, found: int, expected: int, problems: Problems
) -> None:
    if found != expected:
        problems.report(
            place,
            "subgraph",
            f"attribute {which!r} has {found} {kind}, the node implies {expected}",
        )
