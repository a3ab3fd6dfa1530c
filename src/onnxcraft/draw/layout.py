"""The geometry of a picture: every box placed, every edge routed.

A scene is laid out in the layered (Sugiyama) way: layers (:mod:`~onnxcraft.draw.layering`),
long edges cut into dummy points one per layer they cross, crossing reduction
(:mod:`~onnxcraft.draw.ordering`), coordinates (:mod:`~onnxcraft.draw.placing`), and each edge
routed through its dummy points. Bodies are laid out first, each as a scene of its own, and
their frames sized into the box of the node that owns them; then the whole picture is moved
into place, so coordinates are absolute (top-left origin, y down).

An edge runs straight down inside the band of every layer it crosses (where its dummy point
keeps the boxes of that layer away from it) and curves only between bands, where nothing
stands, so edges never cross a box.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

from onnxcraft.draw.layering import Edge, assign_layers
from onnxcraft.draw.ordering import order_layers
from onnxcraft.draw.placing import place_layers
from onnxcraft.draw.scene import Item, Scene
from onnxcraft.draw.text import LINE_HEIGHT, text_width

__all__ = ["Box", "PlacedScene", "Route", "lay_out"]

PAD_X = 8.0  # inside a box, left and right of the text
PAD_Y = 5.0  # above and below the text
LABEL_HEIGHT = 14.0
LAYER_GAP = 22.0  # free space between the bands of two layers, where edges curve
FRAME_MARGIN = 10.0  # inside a body's frame
FRAME_TITLE = 16.0  # the body's name at the top of its frame
BODY_GAP = 12.0  # between two bodies side by side
_GAP = {"value": 4.0, "dummy": 3.0}  # room on each side in a layer; boxes get 8


@dataclass
class PlacedScene:
    """A scene with a geometry: its frame and its boxes and routes, absolute."""

    scene: Scene
    x: float
    y: float
    width: float
    height: float
    boxes: list[Box] = field(default_factory=list)  # by item index
    routes: list[Route] = field(default_factory=list)


@dataclass
class Box:
    item: Item
    x: float  # left
    y: float  # top
    width: float
    height: float
    bodies: list[PlacedScene] = field(default_factory=list)


@dataclass
class Route:
    """An edge: from item ``source`` to item ``target``, through ``points`` (the first on the
    bottom side of the source's box, the last on the top side of the target's)."""

    source: int
    target: int
    points: list[tuple[float, float]]
    flipped: bool = False  # drawn upwards: the edge closes a cycle of a broken model


def lay_out(scene: Scene) -> PlacedScene:
    """The geometry of ``scene`` and of every body inside it, with its frame at (0, 0)."""
    return _Layout(scene).run()


def _text_size(item: Item) -> tuple[float, float]:
    if item.kind == "value":
        return text_width(item.title) + 6.0, LABEL_HEIGHT
    lines = [item.title, *item.lines]
    width = max(text_width(line) for line in lines) + 2 * PAD_X
    return max(width, 40.0), len(lines) * LINE_HEIGHT + 2 * PAD_Y


class _Layout:
    def __init__(self, scene: Scene) -> None:
        self.scene = scene

    def run(self) -> PlacedScene:
        scene = self.scene
        items = scene.items
        count = len(items)
        widths, heights, bodies = self._sizes(items)
        layer = self._layers(items)
        # The layered graph: items first, then dummy points. The edges leaving one box share
        # one chain of dummies down to the lowest box they reach, each leaving the chain just
        # above its target: a value read all along a deep graph costs its height, not its
        # height times its readers.
        node_layer = list(layer)
        chains: list[tuple[int, int, list[int], bool]] = []  # source, target, path, reversed
        trunks: dict[int, list[int]] = {}
        downward: list[tuple[int, int, int, int, bool]] = []
        for source, target in scene.links:
            if source == target:
                continue
            top, bottom, flipped = source, target, False
            if layer[source] > layer[target]:
                top, bottom, flipped = target, source, True
            downward.append((source, target, top, bottom, flipped))
        deepest: dict[int, int] = {}
        for _source, _target, top, bottom, _flipped in downward:
            deepest[top] = max(deepest.get(top, 0), layer[bottom])
        for top, lowest in deepest.items():
            trunk = trunks[top] = []
            for row in range(layer[top] + 1, lowest):
                node_layer.append(row)
                trunk.append(len(node_layer) - 1)
        for source, target, top, bottom, flipped in downward:
            crossed = max(layer[bottom] - layer[top] - 1, 0)
            chains.append((source, target, [top, *trunks[top][:crossed], bottom], flipped))
        total = len(node_layer)
        rows = max(node_layer, default=-1) + 1
        pairs: set[tuple[int, int]] = set()
        for _source, _target, path, _flipped in chains:
            for a, b in pairwise(path):
                if node_layer[a] != node_layer[b]:
                    pairs.add((a, b))
        up: list[list[int]] = [[] for _ in range(total)]
        down: list[list[int]] = [[] for _ in range(total)]
        for a, b in sorted(pairs):
            down[a].append(b)
            up[b].append(a)
        # first order: items in graph order, a dummy beside the item its edge leaves
        key = [float(i) for i in range(count)] + [0.0] * (total - count)
        for _source, _target, path, _flipped in chains:
            for dummy in path[1:-1]:
                key[dummy] = key[path[0]] + 0.5
        layers: list[list[int]] = [[] for _ in range(rows)]
        for node in sorted(range(total), key=key.__getitem__):
            layers[node_layer[node]].append(node)
        # fewer sweeps for large graphs: each costs a pass over every point, and the first
        # ones gain the most (a thousands-of-nodes graph must still draw in a second or two)
        large = total >= 3000
        layers = order_layers(layers, up, down, sweeps=4 if large else 8)
        node_widths = widths + [0.0] * (total - count)
        gaps = [_GAP.get(item.kind, 8.0) for item in items] + [_GAP["dummy"]] * (total - count)
        weights = [4.0] * count + [1.0] * (total - count)
        x = place_layers(
            layers, node_widths, up, down, weights, gaps, boxes=count, sweeps=1 if large else 4
        )
        band_top, band_height = self._bands(layers, heights, count)
        boxes = []
        for index, item in enumerate(items):
            row = layer[index]
            box_top = band_top[row] + (band_height[row] - heights[index]) / 2
            box = Box(item, x[index] - widths[index] / 2, box_top, widths[index], heights[index])
            box.bodies = self._place_bodies(box, bodies[index])
            boxes.append(box)
        routes = [
            self._route(source, target, path, flipped, boxes, x, node_layer, band_top, band_height)
            for source, target, path, flipped in chains
        ]
        _spread_ports(routes, boxes)
        width = max((b.x + b.width for b in boxes), default=0.0)
        height = max((b.y + b.height for b in boxes), default=0.0)
        placed = PlacedScene(scene, 0.0, 0.0, width, height, boxes, routes)
        _shift(placed, FRAME_MARGIN, FRAME_MARGIN + FRAME_TITLE)
        placed.x, placed.y = 0.0, 0.0
        placed.width = width + 2 * FRAME_MARGIN
        placed.height = height + 2 * FRAME_MARGIN + FRAME_TITLE
        return placed

    def _sizes(self, items: list[Item]) -> tuple[list[float], list[float], list[list[PlacedScene]]]:
        widths, heights, bodies = [], [], []
        for item in items:
            width, height = _text_size(item)
            inner = [lay_out(body) for _name, body in item.bodies]
            if inner:
                width = max(
                    width, sum(b.width for b in inner) + BODY_GAP * (len(inner) - 1) + 2 * PAD_X
                )
                height += max(b.height for b in inner) + PAD_Y
            widths.append(width)
            heights.append(height)
            bodies.append(inner)
        return widths, heights, bodies

    def _layers(self, items: list[Item]) -> list[int]:
        """Layers of the boxes, each value label one layer below its producer."""
        producer: dict[int, int] = {}
        consumers: dict[int, list[int]] = {}
        edges: list[Edge] = []
        for source, target in self.scene.links:
            if items[target].kind == "value":
                producer[target] = source
            elif items[source].kind == "value":
                consumers.setdefault(source, []).append(target)
            else:
                edges.append((source, target, 1))
        for label, readers in consumers.items():
            origin = producer.get(label, label)
            span = 2 if origin != label else 1
            edges.extend((origin, reader, span) for reader in readers)
        layer, _reversed = assign_layers(len(items), edges)
        for label, origin in producer.items():
            layer[label] = layer[origin] + 1
        return layer

    def _bands(
        self, layers: list[list[int]], heights: list[float], count: int
    ) -> tuple[list[float], list[float]]:
        band_top, band_height = [], []
        cursor = 0.0
        for row in layers:
            tallest = max((heights[n] for n in row if n < count), default=0.0)
            band_top.append(cursor)
            band_height.append(tallest)
            cursor += tallest + LAYER_GAP
        return band_top, band_height

    def _place_bodies(self, box: Box, inner: list[PlacedScene]) -> list[PlacedScene]:
        if not inner:
            return inner
        text_height = (1 + len(box.item.lines)) * LINE_HEIGHT + 2 * PAD_Y
        used = sum(b.width for b in inner) + BODY_GAP * (len(inner) - 1)
        cursor = box.x + (box.width - used) / 2
        for body in inner:
            _shift(body, cursor, box.y + text_height)
            cursor += body.width + BODY_GAP
        return inner

    def _route(
        self,
        source: int,
        target: int,
        path: list[int],
        flipped: bool,
        boxes: list[Box],
        x: list[float],
        node_layer: list[int],
        band_top: list[float],
        band_height: list[float],
    ) -> Route:
        first, last = boxes[path[0]], boxes[path[-1]]
        points = [(x[path[0]], first.y + first.height)]
        row = node_layer[path[0]]
        points.append((x[path[0]], band_top[row] + band_height[row]))
        for dummy in path[1:-1]:
            row = node_layer[dummy]
            points.append((x[dummy], band_top[row]))
            points.append((x[dummy], band_top[row] + band_height[row]))
        row = node_layer[path[-1]]
        points.append((x[path[-1]], band_top[row]))
        points.append((x[path[-1]], last.y))
        if flipped:
            points.reverse()
        return Route(source, target, points, flipped)


def _spread_ports(routes: list[Route], boxes: list[Box]) -> None:
    """Edges leaving (entering) one box leave (enter) at points spread along its bottom (top)
    side, in the order of where they go (come from), so that they do not start as one line."""
    leaving: dict[int, list[Route]] = {}
    entering: dict[int, list[Route]] = {}
    for route in routes:
        upper, lower = (
            (route.target, route.source) if route.flipped else (route.source, route.target)
        )
        leaving.setdefault(upper, []).append(route)
        entering.setdefault(lower, []).append(route)
    for owner, group in leaving.items():
        _spread(boxes[owner], group, start=True)
    for owner, group in entering.items():
        _spread(boxes[owner], group, start=False)


def _spread(box: Box, group: list[Route], *, start: bool) -> None:
    """Routes run top to bottom here (reversed ones are turned back afterwards); the first
    two points of a route are in its upper box's column, the last two in its lower box's."""
    if len(group) < 2:
        return

    def downward(route: Route) -> list[tuple[float, float]]:
        return route.points[::-1] if route.flipped else route.points

    def aim(route: Route) -> tuple[float, float]:
        points = downward(route)
        return points[2] if start else points[-3]

    # routes going to (coming from) the same point share a port: a shared trunk of dummies
    group.sort(key=aim)
    aims = sorted(set(map(aim, group)))
    if len(aims) < 2:
        return
    slot = {where: index for index, where in enumerate(aims)}
    usable = box.width * 0.7
    for route in group:
        port = box.x + (box.width - usable) / 2 + usable * (slot[aim(route)] + 0.5) / len(aims)
        points = list(downward(route))
        ends = (0, 1) if start else (-1, -2)
        for end in ends:
            points[end] = (port, points[end][1])
        route.points = points[::-1] if route.flipped else points


def _shift(placed: PlacedScene, dx: float, dy: float) -> None:
    placed.x += dx
    placed.y += dy
    for box in placed.boxes:
        box.x += dx
        box.y += dy
        for body in box.bodies:
            _shift(body, dx, dy)
    for route in placed.routes:
        route.points = [(px + dx, py + dy) for px, py in route.points]
