"""Finding what a graph (or a subgraph body) consists of, starting from its outputs.

The walk is iterative (chains of 100k nodes must not hit the recursion limit) and
deterministic: nodes come out in the order they were called, which is a topological order
(a call comes after the values it takes) and the order of the code that built them.
A body's own nodes are those created in its tracing scope; any other value it uses is captured
from an enclosing scope and becomes a dependency of the node that owns the body.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from onnxcraft.core.var import ARG, INITIALIZER, Body, OpCall, Var
from onnxcraft.ir import Node

__all__ = ["Collected", "collect", "collect_body", "ir_nodes"]


@dataclass
class Collected:
    nodes: list[OpCall] = field(default_factory=list)  # topological order
    args: list[Var] = field(default_factory=list)  # ARG Vars of this scope reached
    captures: list[Var] = field(default_factory=list)  # Vars of enclosing scopes reached
    constants: list[Var] = field(default_factory=list)  # lifted literals reached
    bodies: dict[int, Collected] = field(default_factory=dict)  # id(Body) -> its contents


def collect_body(body: Body, cache: dict[int, Collected]) -> Collected:
    key = id(body)
    found = cache.get(key)
    if found is None:
        found = collect(body.outputs, body.scope, cache)
        cache[key] = found
    return found


def collect(outputs: list[Var], scope: int, cache: dict[int, Collected] | None = None) -> Collected:
    """Everything the values ``outputs`` depend on within ``scope``."""
    if cache is None:
        cache = {}
    result = Collected()
    nodes, args, captures, constants = (
        result.nodes,
        result.args,
        result.captures,
        result.constants,
    )
    seen_vars: set[int] = set()  # leaves recorded
    seen_nodes: set[int] = set()
    # Depth first, iterative (a chain of 100k nodes must not hit the recursion limit): a
    # node's dependencies go on the stack in reverse, so that they come off in order, each
    # one's own dependencies before the next. The leaves (inputs, constants, captured values)
    # are recorded in the order this meets them, the order their names are given in.
    stack: list[Var | None] = list(reversed(outputs))
    pop, extend = stack.pop, stack.extend
    while stack:
        var = pop()
        if var is None:  # an optional input left out
            continue
        key = id(var)
        if key in seen_vars:
            continue
        node = var.producer
        if var.kind == INITIALIZER:
            seen_vars.add(key)
            constants.append(var)
            continue
        if var.kind == ARG or node is None:
            seen_vars.add(key)
            (args if var.scope == scope else captures).append(var)
            continue
        if node.scope != scope:
            seen_vars.add(key)
            captures.append(var)
            continue
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        nodes.append(node)
        if node.attributes:
            extend(reversed(_dependencies(node, cache)))
            for body in node.bodies():
                result.bodies[id(body)] = cache[id(body)]
        else:
            extend(reversed(node.inputs))
    nodes.sort(key=_call_order)
    return result


def _call_order(node: OpCall) -> int:
    return node.order


def _dependencies(node: OpCall, cache: dict[int, Collected]) -> list[Var]:
    deps = [v for v in node.inputs if v is not None]
    if not node.attributes:
        return deps
    for body in node.bodies():
        inner = collect_body(body, cache)
        deps.extend(inner.captures)
        # Lifted literals are stored in the main graph, so the node depends on them; a named
        # initializer made in the body (oc.initializer(...).named()) stays the body's own.
        deps.extend(c for c in inner.constants if c.name is None or c.scope != body.scope)
    return deps


def ir_nodes(nodes: list[Node]) -> list[Node]:
    """The nodes of a built graph and, recursively, those of their subgraph attributes."""
    found: list[Node] = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        found.append(node)
        for attr in reversed(node.attributes):
            if attr.type == "GRAPH" and attr.value is not None:
                stack.extend(reversed(attr.value.nodes))
            elif attr.type == "GRAPHS":
                for graph in reversed(attr.value or []):
                    stack.extend(reversed(graph.nodes))
    return found
