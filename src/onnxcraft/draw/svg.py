"""The picture as SVG text: frames, edges, boxes and labels from a laid-out scene.

Every box is a ``<g class="node ...">`` carrying ``data-id`` (the index of its details in the
HTML page), ``data-name`` and ``data-op`` (what the page's search reads) and a ``<title>`` (the
tooltip). Edges are paths: straight down inside a layer's band, a cubic curve with vertical
tangents between bands.
"""

from __future__ import annotations

from html import escape
from typing import Any

from onnxcraft.draw.layout import FRAME_TITLE, PAD_X, PAD_Y, Box, PlacedScene, Route
from onnxcraft.draw.text import FONT_SIZE, LINE_HEIGHT

__all__ = ["STYLE", "render_svg"]

STYLE = f"""
.oc-graph {{ font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: {FONT_SIZE}px; }}
.oc-graph .node rect {{ stroke-width: 1.2; rx: 4px; }}
.oc-graph .op > rect {{ fill: #edf2fa; stroke: #4f6f9f; }}
.oc-graph .input > rect {{ fill: #e3f4e1; stroke: #3f8f3a; rx: 12px; }}
.oc-graph .output > rect {{ fill: #fdebd6; stroke: #c06a10; rx: 12px; }}
.oc-graph .initializer > rect {{ fill: #f1f1f1; stroke: #8a8a8a; }}
.oc-graph .outer > rect {{ fill: #ffffff; stroke: #8a8a8a; stroke-dasharray: 4 3; }}
.oc-graph .node text {{ fill: #1d1d1d; }}
.oc-graph .node .title {{ font-weight: bold; }}
.oc-graph .node .sub {{ fill: #4a4a4a; }}
.oc-graph .value rect {{ fill: #ffffff; stroke: none; }}
.oc-graph .value text {{ fill: #5a5a5a; font-size: {FONT_SIZE - 1}px; }}
.oc-graph .edge {{ fill: none; stroke: #7a7a7a; stroke-width: 1.1; }}
.oc-graph .frame {{ fill: #fbfbfb; fill-opacity: 0.7; stroke: #9aa7b8; stroke-dasharray: 5 3; }}
.oc-graph .frame-title {{ fill: #4f6f9f; font-style: italic; }}
.oc-graph .match > rect {{ fill: #fff1b8; stroke: #d08f00; stroke-width: 3; }}
.oc-graph .selected > rect {{ stroke: #d0312d; stroke-width: 3; }}
"""


_COMPOUND = " compound"  # the class of a box with bodies drawn inside


def _n(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


class _Writer:
    def __init__(self, token: str) -> None:
        self.parts: list[str] = []
        self.token = token
        self.next_id = 0
        self.details: list[dict[str, Any]] = []
        self.arrow = f' marker-end="url(#{token}-a)"'

    def scene(self, placed: PlacedScene, *, frame: bool) -> None:
        out = self.parts
        if frame:
            out.append(
                f'<rect class="frame" x="{_n(placed.x)}" y="{_n(placed.y)}" '
                f'width="{_n(placed.width)}" height="{_n(placed.height)}" rx="6"/>'
                f'<text class="frame-title" x="{_n(placed.x + 8)}" '
                f'y="{_n(placed.y + FRAME_TITLE - 2)}">{escape(placed.scene.title)}</text>'
            )
        items = placed.scene.items
        for route in placed.routes:
            # a value's label sits on its edges: the arrow head is where the value arrives
            arrow = "" if items[route.target].kind == "value" else self.arrow
            out.append(f'<path class="edge" d="{_path(route)}"{arrow}/>')
        for box in placed.boxes:
            self.box(box)

    def box(self, box: Box) -> None:
        item = box.item
        out = self.parts
        if item.kind == "value":
            out.append(
                f'<g class="value"><title>{escape(item.name)}: {escape(item.title)}</title>'
                f'<rect x="{_n(box.x)}" y="{_n(box.y)}" width="{_n(box.width)}" '
                f'height="{_n(box.height)}"/><text x="{_n(box.x + box.width / 2)}" '
                f'y="{_n(box.y + box.height - 3.5)}" text-anchor="middle">{escape(item.title)}'
                f"</text></g>"
            )
            return
        ident = self.next_id
        self.next_id += 1
        self.details.append(item.details)
        tooltip = escape(f"{item.op or item.kind} {item.name}".strip())
        kind = item.kind + (_COMPOUND if box.bodies else "")
        out.append(
            f'<g class="node {kind}" id="{self.token}-n{ident}" data-id="{ident}" '
            f'data-name="{escape(item.name)}" data-op="{escape(item.op)}">'
            f"<title>{tooltip}</title>"
            f'<rect x="{_n(box.x)}" y="{_n(box.y)}" width="{_n(box.width)}" '
            f'height="{_n(box.height)}"/>'
        )
        left = _n(box.x + PAD_X)
        baseline = box.y + PAD_Y + LINE_HEIGHT - 3.5
        out.append(f'<text class="title" x="{left}" y="{_n(baseline)}">{escape(item.title)}</text>')
        for line in item.lines:
            baseline += LINE_HEIGHT
            out.append(f'<text class="sub" x="{left}" y="{_n(baseline)}">{escape(line)}</text>')
        out.append("</g>")
        for body in box.bodies:
            self.scene(body, frame=True)


def _path(route: Route) -> str:
    points = route.points
    x0, y0 = points[0]
    parts = [f"M{_n(x0)} {_n(y0)}"]
    for x1, y1 in points[1:]:
        if x1 == x0 or abs(y1 - y0) < 0.5:
            if (x1, y1) != (x0, y0):
                parts.append(f"L{_n(x1)} {_n(y1)}")
        else:
            middle = (y0 + y1) / 2
            parts.append(f"C{_n(x0)} {_n(middle)} {_n(x1)} {_n(middle)} {_n(x1)} {_n(y1)}")
        x0, y0 = x1, y1
    return "".join(parts)


def render_svg(placed: PlacedScene, token: str) -> tuple[str, list[dict[str, Any]]]:
    """The SVG document of a laid-out picture, and the details of its boxes by ``data-id``.

    ``token`` prefixes the element ids, so that several pictures can share one page.
    """
    writer = _Writer(token)
    writer.scene(placed, frame=False)
    width, height = placed.width, placed.height
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="oc-graph" width="{_n(width)}" '
        f'height="{_n(height)}" viewBox="0 0 {_n(width)} {_n(height)}">'
        f"<style>{STYLE}</style>"
        f'<defs><marker id="{token}-a" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" '
        f'markerHeight="7" orient="auto-start-reverse"><path d="M0 0L8 4L0 8z" fill="#7a7a7a"/>'
        f"</marker></defs>"
        f'<rect width="100%" height="100%" fill="#ffffff"/>'
    )
    return head + '<g class="oc-scene">' + "".join(writer.parts) + "</g></svg>", writer.details
