"""Checks on a drawing's geometry, shared by the picture tests."""

from __future__ import annotations

from onnxcraft.draw.api import Drawing
from onnxcraft.draw.layout import Box, PlacedScene

TOLERANCE = 0.01  # px: coordinates are sums of floats


def overlapping(boxes: list[Box]) -> list[tuple[str, str]]:
    """Pairs of boxes whose insides intersect (touching sides do not count), by a sweep over
    the boxes sorted by their left side."""
    found = []
    ordered = sorted(boxes, key=lambda b: b.x)
    for index, a in enumerate(ordered):
        for b in ordered[index + 1 :]:
            if b.x >= a.x + a.width - TOLERANCE:
                break
            if b.y < a.y + a.height - TOLERANCE and a.y < b.y + b.height - TOLERANCE:
                found.append((a.item.title, b.item.title))
    return found


def inside(inner: PlacedScene, outer: Box) -> bool:
    return (
        outer.x - TOLERANCE <= inner.x
        and inner.x + inner.width <= outer.x + outer.width + TOLERANCE
        and outer.y - TOLERANCE <= inner.y
        and inner.y + inner.height <= outer.y + outer.height + TOLERANCE
    )


def on_bottom(point: tuple[float, float], box: Box) -> bool:
    x, y = point
    return abs(y - (box.y + box.height)) <= TOLERANCE and box.x <= x <= box.x + box.width


def on_top(point: tuple[float, float], box: Box) -> bool:
    x, y = point
    return abs(y - box.y) <= TOLERANCE and box.x <= x <= box.x + box.width


def problems(drawing: Drawing) -> list[str]:
    """Everything wrong with a drawing's geometry: overlapping boxes in one scene, a body
    outside its node's box, bodies of one node overlapping, an edge not ending at its boxes."""
    found: list[str] = []
    stack = [drawing.layout]
    while stack:
        placed = stack.pop()
        title = placed.scene.title
        found += [f"{title}: boxes {a!r} and {b!r} overlap" for a, b in overlapping(placed.boxes)]
        for box in placed.boxes:
            for body in box.bodies:
                if not inside(body, box):
                    found.append(f"{title}: body {body.scene.title!r} outside {box.item.title!r}")
            frames = [Box(box.item, b.x, b.y, b.width, b.height) for b in box.bodies]
            found += [f"{title}: bodies of {box.item.title!r} overlap" for _ in overlapping(frames)]
            stack.extend(box.bodies)
        for route in placed.routes:
            source, target = placed.boxes[route.source], placed.boxes[route.target]
            upper, lower = (target, source) if route.flipped else (source, target)
            first, last = (
                (route.points[-1], route.points[0])
                if route.flipped
                else (
                    route.points[0],
                    route.points[-1],
                )
            )
            if not on_bottom(first, upper) or not on_top(last, lower):
                found.append(
                    f"{title}: edge {source.item.title!r} -> {target.item.title!r} does not end "
                    f"at its boxes: {route.points[0]} .. {route.points[-1]}"
                )
    return found
