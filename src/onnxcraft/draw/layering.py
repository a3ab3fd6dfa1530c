"""Layer assignment: which row of the picture each box sits in.

Edges point down: a box sits below everything it reads. Layers start from the longest path
(each box just below its lowest input), then boxes are moved down towards what reads them
where that shortens the edges in total (a box read by more edges than it reads, and every box
that reads nothing, such as an input or a constant), the cheap part of the network-simplex
method. A graph with a cycle (only a broken model has one) is drawn with the edges that close
a cycle reversed.
"""

from __future__ import annotations

__all__ = ["Edge", "assign_layers"]

Edge = tuple[int, int, int]  # (source, target, the fewest layers the edge spans)


def _acyclic(count: int, edges: list[Edge]) -> tuple[list[Edge], list[int], set[int]]:
    """The edges with those closing a cycle reversed, a topological order, and the indices
    of the reversed edges (found by a depth-first search in node order)."""
    out: list[list[int]] = [[] for _ in range(count)]
    for index, (source, _target, _span) in enumerate(edges):
        out[source].append(index)
    state = [0] * count  # 0 unseen, 1 on the stack, 2 done
    reversed_edges: set[int] = set()
    finished: list[int] = []
    for root in range(count):
        if state[root]:
            continue
        state[root] = 1
        stack: list[tuple[int, int]] = [(root, 0)]
        while stack:
            node, position = stack[-1]
            if position < len(out[node]):
                stack[-1] = (node, position + 1)
                edge = out[node][position]
                target = edges[edge][1]
                if state[target] == 1:
                    reversed_edges.add(edge)
                elif state[target] == 0:
                    state[target] = 1
                    stack.append((target, 0))
            else:
                state[node] = 2
                finished.append(node)
                stack.pop()
    fixed = [
        (t, s, span) if i in reversed_edges else (s, t, span)
        for i, (s, t, span) in enumerate(edges)
    ]
    finished.reverse()
    return fixed, finished, reversed_edges


def assign_layers(count: int, edges: list[Edge]) -> tuple[list[int], set[int]]:
    """A layer per node (0 at the top) and the indices of the edges drawn reversed."""
    fixed, order, reversed_edges = _acyclic(count, edges)
    preds: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    succs: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    for source, target, span in fixed:
        if source == target:
            continue
        preds[target].append((source, span))
        succs[source].append((target, span))
    layer = [0] * count
    for node in order:
        for pred, span in preds[node]:
            layer[node] = max(layer[node], layer[pred] + span)
    for node in reversed(order):
        below = succs[node]
        if not below:
            continue
        if preds[node] and len(below) <= len(preds[node]):
            continue
        lowest = min(layer[s] - span for s, span in below)
        layer[node] = max(layer[node], lowest)
    if layer:
        top = min(layer)
        layer = [value - top for value in layer]
    return layer, reversed_edges
