"""Crossing reduction: the order of the boxes within each layer.

Sweeps down and up the layers, each layer sorted by the median position of its neighbours in
the layer just done (the barycenter breaks ties, and a box without neighbours there keeps its
place), as in Sugiyama's method; after each sweep pair the crossings are counted (Barth, Jünger
and Mutzel's accumulator tree, O(E log V) per pair of layers) and the best order seen is kept.
"""

from __future__ import annotations

from itertools import pairwise

__all__ = ["count_crossings", "order_layers"]


def order_layers(
    layers: list[list[int]],
    up: list[list[int]],
    down: list[list[int]],
    *,
    sweeps: int,
) -> list[list[int]]:
    """``layers`` reordered; ``up[v]``/``down[v]`` are ``v``'s neighbours in the layer above
    and below. ``layers`` gives the first order."""
    position = [0] * len(up)
    for row in layers:
        for index, node in enumerate(row):
            position[node] = index
    best = [list(row) for row in layers]
    best_crossings = count_crossings(layers, down, position)
    current = [list(row) for row in layers]
    for _ in range(sweeps):
        if best_crossings == 0:
            break
        for index in range(1, len(current)):
            _sort_by_neighbours(current[index], up, position)
        for index in range(len(current) - 2, -1, -1):
            _sort_by_neighbours(current[index], down, position)
        crossings = count_crossings(current, down, position)
        if crossings < best_crossings:
            best_crossings = crossings
            best = [list(row) for row in current]
        elif crossings == best_crossings:
            best = [list(row) for row in current]
        else:  # worse: carry on from the best order
            current = [list(row) for row in best]
            for row in current:
                for index, node in enumerate(row):
                    position[node] = index
    return best


def _sort_by_neighbours(row: list[int], neighbours: list[list[int]], position: list[int]) -> None:
    keys: dict[int, tuple[float, float, int]] = {}
    for index, node in enumerate(row):
        near = neighbours[node]
        if not near:
            keys[node] = (float(index), float(index), index)
            continue
        places = sorted(position[n] for n in near)
        middle = len(places) // 2
        median = places[middle] if len(places) % 2 else (places[middle - 1] + places[middle]) / 2
        keys[node] = (float(median), sum(places) / len(places), index)
    # a box without neighbours keeps its index; scale the others onto the same range
    row.sort(key=keys.__getitem__)
    for index, node in enumerate(row):
        position[node] = index


def count_crossings(layers: list[list[int]], down: list[list[int]], position: list[int]) -> int:
    """The number of edge crossings between consecutive layers."""
    total = 0
    for upper, lower in pairwise(layers):
        if not upper or not lower:
            continue
        targets: list[int] = []
        for node in upper:
            targets.extend(sorted(position[n] for n in down[node]))
        total += _inversions(targets, len(lower))
    return total


def _inversions(sequence: list[int], size: int) -> int:
    """Pairs i < j with sequence[i] > sequence[j], with a Fenwick tree over 0..size-1."""
    tree = [0] * (size + 1)
    count = 0
    for seen, value in enumerate(sequence):
        # how many earlier values are <= value
        index = value + 1
        not_greater = 0
        while index > 0:
            not_greater += tree[index]
            index -= index & -index
        count += seen - not_greater
        index = value + 1
        while index <= size:
            tree[index] += 1
            index += index & -index
    return count
