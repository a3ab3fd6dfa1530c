"""Coordinate assignment: x of every box within its layer, y of every layer.

Within a layer the order is fixed (crossing reduction chose it) and neighbours must keep a gap,
so the x centres are found by a few sweeps in which each box wants to sit at the mean x of its
neighbours in the layer just placed, and the layer takes the closest positions that keep the
order and the gaps: a weighted isotonic regression, solved exactly by pooling adjacent
violators in linear time. Boxes weigh more than the dummy points of long edges and line up
with the boxes next to them, so that chains of boxes run straight and long edges bend around
them. Boxes cannot overlap: the gaps are constraints, not wishes.
"""

from __future__ import annotations

from itertools import pairwise

__all__ = ["place_layers"]


def place_layers(
    layers: list[list[int]],
    widths: list[float],
    up: list[list[int]],
    down: list[list[int]],
    weights: list[float],
    gap: list[float],
    *,
    boxes: int,
    sweeps: int = 4,
) -> list[float]:
    """The x centre of every node; ``gap[v]`` is the room ``v`` wants on each side; nodes
    below ``boxes`` are boxes, the others dummy points of long edges."""
    x = [0.0] * len(widths)
    for row in layers:  # packed from the left to start with
        cursor = 0.0
        for node in row:
            x[node] = cursor + gap[node] + widths[node] / 2
            cursor = x[node] + widths[node] / 2 + gap[node]
    # how far right of a row's first centre each centre must at least be: fixed by the order
    offsets: list[list[float]] = []
    for row in layers:
        offset = [0.0]
        for a, b in pairwise(row):
            offset.append(offset[-1] + widths[a] / 2 + gap[a] + gap[b] + widths[b] / 2)
        offsets.append(offset)
    widest = max(range(len(layers)), key=lambda i: len(layers[i]), default=0)
    order = list(range(len(layers)))
    down_pass = order[widest + 1 :]
    up_pass = list(reversed(order[:widest]))
    for _ in range(sweeps):
        for index in down_pass:
            _fit_row(layers[index], offsets[index], x, up, weights, boxes)
        for index in up_pass:
            _fit_row(layers[index], offsets[index], x, down, weights, boxes)
        down_pass, up_pass = list(reversed(order[:-1])), order[1:]
        for index in down_pass:
            _fit_row(layers[index], offsets[index], x, down, weights, boxes)
        for index in up_pass:
            _fit_row(layers[index], offsets[index], x, up, weights, boxes)
        down_pass, up_pass = order[1:], list(reversed(order[:-1]))
    if x:
        left = min(x[n] - widths[n] / 2 - gap[n] for row in layers for n in row)
        x = [value - left for value in x]
    return x


def _fit_row(
    row: list[int],
    offsets: list[float],
    x: list[float],
    neighbours: list[list[int]],
    weights: list[float],
    boxes: int,
) -> None:
    if len(row) == 1:  # alone in its layer: right at its neighbours' mean
        near = _followed(row[0], neighbours, boxes)
        if near:
            x[row[0]] = sum(x[n] for n in near) / len(near)
        return
    wanted: list[float] = []
    weight: list[float] = []
    for node in row:
        near = _followed(node, neighbours, boxes)
        if near:
            wanted.append(sum(x[n] for n in near) / len(near))
            weight.append(weights[node] * len(near))
        else:
            wanted.append(x[node])
            weight.append(0.01)  # free to move, but stays put if nothing pushes it
    solved = _isotonic([w - o for w, o in zip(wanted, offsets)], weight)
    for node, value, offset in zip(row, solved, offsets):
        x[node] = value + offset


def _followed(node: int, neighbours: list[list[int]], boxes: int) -> list[int]:
    """The neighbours a box lines up with: the boxes next to it rather than the long edges
    passing by, which bend around it instead. Otherwise a block of a residual network would
    sit halfway towards its skip edge, a drift that adds up over a deep network."""
    near = neighbours[node]
    if node >= boxes or len(near) < 2:
        return near
    real = [n for n in near if n < boxes]
    return real or near


def _isotonic(values: list[float], weights: list[float]) -> list[float]:
    """The non-decreasing sequence closest to ``values`` in weighted least squares."""
    means: list[float] = []
    masses: list[float] = []
    sizes: list[int] = []
    for value, weight in zip(values, weights):
        means.append(value)
        masses.append(weight)
        sizes.append(1)
        while len(means) > 1 and means[-2] > means[-1]:
            mass = masses[-2] + masses[-1]
            mean = (means[-2] * masses[-2] + means[-1] * masses[-1]) / mass
            size = sizes[-2] + sizes[-1]
            del means[-1], masses[-1], sizes[-1]
            means[-1], masses[-1], sizes[-1] = mean, mass, size
    result: list[float] = []
    for mean, size in zip(means, sizes):
        result.extend([mean] * size)
    return result
