"""What a picture shows, before it has a geometry: items (boxes and edge labels) and links.

:mod:`~onnxcraft.draw.extract` makes a :class:`Scene` of a graph; the layout gives it
coordinates. An item that owns subgraphs (If, Loop, Scan, a function call drawn expanded) holds
a scene per body, laid out inside its box.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["BOX_KINDS", "Item", "Scene"]

# An operator node; a graph input, output or initializer; a value a subgraph takes from the
# graph around it; the label of a value on its edges.
BOX_KINDS = ("op", "input", "output", "initializer", "outer")


@dataclass
class Item:
    """One thing the layout places: a box, or the label of a value (kind ``"value"``)."""

    kind: str
    title: str  # the first line, in bold for operators
    lines: list[str] = field(default_factory=list)  # the rest of the box's text
    name: str = ""  # the node's or value's name, searched by the HTML page
    op: str = ""  # the operator type, searched too
    details: dict[str, Any] = field(default_factory=dict)  # the side panel's content
    bodies: list[tuple[str, Scene]] = field(default_factory=list)  # drawn inside the box


@dataclass
class Scene:
    """One graph: its items and the links between them (indices into ``items``)."""

    title: str
    items: list[Item] = field(default_factory=list)
    links: list[tuple[int, int]] = field(default_factory=list)

    def add(self, item: Item) -> int:
        self.items.append(item)
        return len(self.items) - 1

    def link(self, source: int, target: int) -> None:
        self.links.append((source, target))
