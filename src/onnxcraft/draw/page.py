"""The HTML page of a picture: the SVG inline, with pan, zoom, search and a details panel.

Everything is in the page (style, script, the details of every box as JSON), nothing is
fetched. The same fragment serves a notebook cell: its script finds its elements under one
root whose id is the picture's token, so several pictures can share a notebook.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

__all__ = ["html_fragment", "html_page"]

_CSS = """
.oc-draw { position: relative; display: flex; flex-direction: column; height: 100%;
  min-height: 420px; border: 1px solid #d0d7e2; background: #ffffff;
  font: 13px system-ui, sans-serif; color: #1d1d1d; }
.oc-draw .oc-bar { display: flex; gap: 6px; align-items: center; padding: 6px 8px;
  border-bottom: 1px solid #d0d7e2; background: #f6f8fb; }
.oc-draw .oc-bar input { flex: 0 1 260px; padding: 3px 6px; }
.oc-draw .oc-bar button { padding: 2px 8px; }
.oc-draw .oc-count { color: #555; min-width: 7em; }
.oc-draw .oc-title { margin-left: auto; color: #4f6f9f; font-weight: 600; }
.oc-draw .oc-main { position: relative; flex: 1; display: flex; min-height: 0; }
.oc-draw .oc-view { flex: 1; overflow: hidden; cursor: grab; touch-action: none; }
.oc-draw .oc-view.oc-dragging { cursor: grabbing; }
.oc-draw .oc-view svg { display: block; width: 100%; height: 100%; user-select: none; }
.oc-draw .oc-view .node { cursor: pointer; }
.oc-draw .oc-panel { width: 340px; overflow: auto; border-left: 1px solid #d0d7e2;
  padding: 8px 10px; background: #fcfcfd; }
.oc-draw .oc-panel[hidden] { display: none; }
.oc-draw .oc-panel h3 { margin: 2px 0 6px; font-size: 15px; }
.oc-draw .oc-panel h4 { margin: 10px 0 4px; font-size: 12px; color: #4f6f9f;
  text-transform: uppercase; }
.oc-draw .oc-panel table { border-collapse: collapse; width: 100%; }
.oc-draw .oc-panel td { border-top: 1px solid #e6e9ef; padding: 2px 4px; vertical-align: top;
  font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 11px;
  word-break: break-all; }
.oc-draw .oc-panel td:first-child { color: #555; width: 35%; }
.oc-draw .oc-close { float: right; }
"""

# The page's behaviour. ROOT is replaced by the picture's token.
_JS = r"""
(function () {
  var root = document.getElementById("ROOT");
  var view = root.querySelector(".oc-view");
  var svg = view.querySelector("svg");
  var panel = root.querySelector(".oc-panel");
  var search = root.querySelector(".oc-search");
  var count = root.querySelector(".oc-count");
  var details = JSON.parse(root.querySelector(".oc-details").textContent);
  var nodes = Array.prototype.slice.call(svg.querySelectorAll("g.node"));
  var full = { w: svg.viewBox.baseVal.width, h: svg.viewBox.baseVal.height };
  var box = { x: 0, y: 0, w: full.w, h: full.h };
  svg.removeAttribute("width");
  svg.removeAttribute("height");

  function apply() {
    svg.setAttribute("viewBox", [box.x, box.y, box.w, box.h].join(" "));
  }
  function scale() {  // screen pixels per picture unit
    var r = view.getBoundingClientRect();
    return Math.min(r.width / box.w, r.height / box.h);
  }
  function setScale(s, cx, cy) {  // keep the picture point (cx, cy) where it is
    var r = view.getBoundingClientRect();
    var w = r.width / s, h = r.height / s;
    box.x = cx - (cx - box.x) * w / box.w;
    box.y = cy - (cy - box.y) * h / box.h;
    box.w = w; box.h = h;
    apply();
  }
  function fit() {
    var r = view.getBoundingClientRect();
    var s = Math.min(r.width / full.w, r.height / full.h, 1.5);
    box.w = r.width / s; box.h = r.height / s;
    box.x = (full.w - box.w) / 2; box.y = (full.h - box.h) / 2;
    if (s < 0.35 && nodes.length) {  // too small to read: start readable, at the first box
      s = 0.8; box.w = r.width / s; box.h = r.height / s;
      var first = nodes[0].getBBox();
      box.x = first.x + first.width / 2 - box.w / 2; box.y = 0;
    }
    apply();
  }
  function actual() {
    var r = view.getBoundingClientRect();
    box.x = box.x + box.w / 2 - r.width / 2; box.y = box.y + box.h / 2 - r.height / 2;
    box.w = r.width; box.h = r.height;
    apply();
  }
  function point(event) {  // the picture point under the pointer
    var r = view.getBoundingClientRect(), s = scale();
    return { x: box.x + (event.clientX - r.left) / s, y: box.y + (event.clientY - r.top) / s };
  }
  function centerOn(node) {
    var b = node.getBBox(), s = Math.max(scale(), 0.8);
    var r = view.getBoundingClientRect();
    box.w = r.width / s; box.h = r.height / s;
    box.x = b.x + b.width / 2 - box.w / 2; box.y = b.y + b.height / 2 - box.h / 2;
    apply();
  }

  view.addEventListener("wheel", function (event) {
    event.preventDefault();
    var p = point(event);
    var s = scale() * Math.exp(-event.deltaY * 0.0015);
    setScale(Math.max(0.02, Math.min(s, 8)), p.x, p.y);
  }, { passive: false });

  var drag = null;
  view.addEventListener("pointerdown", function (event) {
    drag = { x: event.clientX, y: event.clientY, bx: box.x, by: box.y, moved: false };
  });
  view.addEventListener("pointermove", function (event) {
    if (!drag) return;
    var dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!drag.moved) { drag.moved = true; view.setPointerCapture(event.pointerId); }
    view.classList.add("oc-dragging");
    var s = scale();
    box.x = drag.bx - dx / s; box.y = drag.by - dy / s;
    apply();
  });
  function endDrag(event) {
    var moved = drag && drag.moved;
    drag = null;
    view.classList.remove("oc-dragging");
    return moved;
  }
  view.addEventListener("pointerup", function (event) {
    if (endDrag(event)) return;
    var node = event.target.closest ? event.target.closest("g.node") : null;
    if (node) select(node);
  });
  view.addEventListener("pointercancel", endDrag);

  function cell(text) {
    var td = document.createElement("td");
    td.textContent = text;
    return td;
  }
  function table(title, rows) {
    if (!rows || !rows.length) return;
    var h = document.createElement("h4");
    h.textContent = title;
    panel.appendChild(h);
    var t = document.createElement("table");
    rows.forEach(function (row) {
      var tr = document.createElement("tr");
      tr.appendChild(cell(row[0]));
      tr.appendChild(cell(row[1]));
      t.appendChild(tr);
    });
    panel.appendChild(t);
  }
  function select(node) {
    nodes.forEach(function (n) { n.classList.remove("selected"); });
    node.classList.add("selected");
    var d = details[+node.getAttribute("data-id")] || {};
    panel.innerHTML = "";
    var close = document.createElement("button");
    close.className = "oc-close";
    close.textContent = "\u00d7";
    close.onclick = function () { panel.hidden = true; };
    panel.appendChild(close);
    var h = document.createElement("h3");
    h.textContent = d.kind === "op" ? d.op : d.kind;
    panel.appendChild(h);
    var info = [["name", d.name || "(unnamed)"]];
    if (d.type) info.push(["type", d.type]);
    table("node", info);
    table("attributes", d.attributes);
    table("inputs", d.inputs);
    table("outputs", d.outputs);
    if (d.doc) table("doc", [["", d.doc]]);
    panel.hidden = false;
  }

  var matches = [], current = -1;
  function find() {
    var q = search.value.trim().toLowerCase();
    matches = [];
    current = -1;
    nodes.forEach(function (n) {
      var hit = q !== "" && ((n.getAttribute("data-name") || "").toLowerCase().indexOf(q) >= 0
        || (n.getAttribute("data-op") || "").toLowerCase().indexOf(q) >= 0);
      n.classList.toggle("match", hit);
      if (hit) matches.push(n);
    });
    var found = matches.length + (matches.length === 1 ? " match" : " matches");
    count.textContent = q === "" ? "" : found;
    if (matches.length) { current = 0; centerOn(matches[0]); }
  }
  search.addEventListener("input", find);
  search.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && matches.length) {
      current = (current + 1) % matches.length;
      centerOn(matches[current]);
      select(matches[current]);
    }
  });
  root.querySelector(".oc-zoom-in").onclick = function () {
    setScale(scale() * 1.25, box.x + box.w / 2, box.y + box.h / 2);
  };
  root.querySelector(".oc-zoom-out").onclick = function () {
    setScale(scale() / 1.25, box.x + box.w / 2, box.y + box.h / 2);
  };
  root.querySelector(".oc-fit").onclick = fit;
  root.querySelector(".oc-actual").onclick = actual;
  fit();
})();
"""


def _json(details: list[dict[str, Any]]) -> str:
    # "</" would end the script element early
    return json.dumps(details, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")


def html_fragment(
    svg: str, details: list[dict[str, Any]], title: str, token: str, *, height: int = 0
) -> str:
    """The picture with its controls, as a ``<div>`` that needs nothing around it
    (``height`` in pixels, else the height of what holds it)."""
    size = f' style="height: {height}px"' if height else ""
    return (
        f'<div class="oc-draw" id="{token}"{size}><style>{_CSS}</style>'
        f'<div class="oc-bar"><input class="oc-search" type="search" '
        f'placeholder="search name or operator" aria-label="search">'
        f'<span class="oc-count"></span><button class="oc-zoom-in" title="zoom in">+</button>'
        f'<button class="oc-zoom-out" title="zoom out">&#8722;</button>'
        f'<button class="oc-fit" title="fit">fit</button>'
        f'<button class="oc-actual" title="actual size">1:1</button>'
        f'<span class="oc-title">{escape(title)}</span></div>'
        f'<div class="oc-main"><div class="oc-view">{svg}</div>'
        f'<div class="oc-panel" hidden></div></div>'
        f'<script type="application/json" class="oc-details">{_json(details)}</script>'
        f"<script>{_JS.replace('ROOT', token)}</script></div>"
    )


def html_page(svg: str, details: list[dict[str, Any]], title: str, token: str) -> str:
    """A whole HTML document showing the picture in the browser's window."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title>"
        "<style>html, body { height: 100%; margin: 0; } .oc-draw { border: none; }</style>"
        f"</head><body>{html_fragment(svg, details, title, token)}</body></html>"
    )
