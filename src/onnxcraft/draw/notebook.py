"""The pictures notebooks show for models and Vars (``_repr_svg_`` / ``_repr_html_``).

The package root puts :func:`picture` in the slots the lower layers hold for it
(``onnxcraft.core.hooks.picture`` for ``Var``, ``onnxcraft.ir.register_picture`` for IR models
and ModelProto), loading this package on the first picture asked for.
"""

from __future__ import annotations

from typing import Any

from onnxcraft.draw.api import draw
from onnxcraft.errors import OnnxcraftError

__all__ = ["picture"]


def picture(subject: Any, kind: str) -> str | None:
    """``subject`` (a model or a Var) drawn as ``kind`` ("svg" or "html"); None when it cannot
    be drawn, so that the notebook shows its text instead."""
    try:
        drawing = draw(subject)
    except OnnxcraftError:
        return None
    return drawing._repr_svg_() if kind == "svg" else drawing._repr_html_()
