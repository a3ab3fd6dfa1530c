"""``oc.draw``: a picture of any graph, as SVG or as an HTML page.

The model is read into the IR, its types inferred where value_info does not state them (so
that every edge can say what flows along it), turned into scenes, laid out and written. The
:class:`Drawing` keeps the geometry (``layout``) and writes the texts on first use; notebooks
show it through ``_repr_svg_`` / ``_repr_html_``.
"""

from __future__ import annotations

import os
import secrets
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from onnxcraft import ir
from onnxcraft.core.build import build_ir
from onnxcraft.core.graphwalk import collect
from onnxcraft.core.var import Var
from onnxcraft.draw.extract import scene_of_model
from onnxcraft.draw.layout import Box, PlacedScene, lay_out
from onnxcraft.draw.page import html_fragment, html_page
from onnxcraft.draw.svg import render_svg
from onnxcraft.errors import ArgumentError, OnnxcraftError
from onnxcraft.infer.model import infer_shapes
from onnxcraft.io import model_ir, write_file

__all__ = ["Drawing", "draw", "model_of_vars"]

_SUFFIXES = (".svg", ".html", ".htm")
_TOKEN = (
    "ocg"  # element ids of a file's picture: fixed, so that the same model writes the same file
)


class Drawing:
    """A laid-out picture of a graph: ``svg`` and ``html`` texts, ``layout`` geometry."""

    def __init__(self, layout: PlacedScene, title: str) -> None:
        self.layout = layout
        self.title = title
        self._svg: tuple[str, list[dict[str, Any]]] | None = None
        self._html: str | None = None

    def _rendered(self) -> tuple[str, list[dict[str, Any]]]:
        if self._svg is None:
            self._svg = render_svg(self.layout, _TOKEN)
        return self._svg

    @property
    def svg(self) -> str:
        """The picture as a standalone SVG document."""
        return self._rendered()[0]

    @property
    def html(self) -> str:
        """A self-contained HTML page: the picture with pan, zoom, search and details."""
        if self._html is None:
            svg, details = self._rendered()
            self._html = html_page(svg, details, self.title, _TOKEN)
        return self._html

    def boxes(self) -> list[Box]:
        """Every box of the picture, those inside bodies included."""
        found: list[Box] = []
        stack = [self.layout]
        while stack:
            placed = stack.pop()
            for box in placed.boxes:
                found.append(box)
                stack.extend(box.bodies)
        return found

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the picture to ``path``: SVG for ``.svg``, the HTML page for ``.html``."""
        target = _picture_path(path)
        text = self.svg if target.suffix.lower() == ".svg" else self.html
        write_file(target, text.encode("utf-8"), function="draw")

    def _repr_svg_(self) -> str:
        return self.svg

    def _repr_html_(self) -> str:
        # a fresh token per display: one notebook shows many pictures
        token = "ocg" + secrets.token_hex(4)
        svg, details = render_svg(self.layout, token)
        return html_fragment(svg, details, self.title, token, height=600)

    def __repr__(self) -> str:
        return f"<onnxcraft Drawing of {self.title!r}: {len(self.boxes())} boxes>"


def _picture_path(path: Any) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentError(
            f"draw: path must be a str or os.PathLike ending in .svg or .html, got "
            f"{type(path).__name__} {path!r}"
        )
    target = Path(path)
    if target.suffix.lower() not in _SUFFIXES:
        raise ArgumentError(
            f"draw: path must end in .svg or .html (the format is told by the suffix), got "
            f"{str(path)!r}"
        )
    return target


def model_of_vars(outputs: Var | Sequence[Var]) -> ir.Model:
    """The model computing ``outputs`` from the graph inputs they depend on."""
    chosen = [outputs] if isinstance(outputs, Var) else list(outputs)
    if not chosen or not all(isinstance(v, Var) for v in chosen):
        raise ArgumentError(f"draw: expected a Var or a list of Vars, got {outputs!r}")
    scope = chosen[0].scope
    found = collect(chosen, scope)
    named = {v.name or f"output_{i}": v for i, v in enumerate(chosen)}
    return build_ir(found.args, named, name="expression")


def _typed(model: ir.Model) -> ir.Model:
    """``model`` with inferred types where its value_info says nothing; as it is when
    inference cannot go through (a broken model is still drawn)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            inferred = infer_shapes(model)
        except OnnxcraftError:
            return model
    return inferred if isinstance(inferred, ir.Model) else model


def draw(model: Any, path: str | os.PathLike[str] | None = None) -> Drawing:
    """A picture of ``model``'s graph; written to ``path`` too when given (``.svg`` or
    ``.html``, by the suffix; written atomically).

    ``model`` is anything the library reads (a ModelProto, onnxcraft's or onnx's, an IR model,
    bytes, the path of a model file), or a Var or list of Vars (the graph computing them).
    """
    if path is not None:
        _picture_path(path)  # a wrong suffix is refused before any work
    if isinstance(model, Var) or (
        isinstance(model, (list, tuple)) and model and all(isinstance(v, Var) for v in model)
    ):
        source = model_of_vars(model)
    else:
        source = model_ir(model, what="draw: model")
    typed = _typed(source)
    title = typed.graph.name or "graph"
    drawing = Drawing(lay_out(scene_of_model(typed)), title)
    if path is not None:
        drawing.save(path)
    return drawing
