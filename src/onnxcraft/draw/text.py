"""The words of a picture: type labels, tensor summaries, attribute values, text widths.

Boxes are sized from their text without font metrics: the picture uses a monospaced font, so a
line is as wide as its characters times the font's advance (0.6 em for the usual monospaced
faces). Long lines are cut with an ellipsis so that no box grows past a readable width.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import ElementType, numpy_dtype, type_string
from onnxcraft.errors import OnnxcraftError
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType

__all__ = [
    "CHAR_WIDTH",
    "FONT_SIZE",
    "LINE_HEIGHT",
    "attribute_text",
    "clip",
    "short_attribute",
    "tensor_summary",
    "text_width",
    "type_label",
]

FONT_SIZE = 11  # px, every line of a box
CHAR_WIDTH = FONT_SIZE * 0.6  # the advance of a monospaced face
LINE_HEIGHT = 14  # px between baselines
BOX_LINE_LIMIT = 44  # characters of a line inside a box, the rest elided
_FULL_VALUES = 64  # values of a tensor listed in the side panel
_FULL_LIST = 256  # items of an attribute list listed in the side panel


def text_width(text: str) -> float:
    return len(text) * CHAR_WIDTH


def clip(text: str, limit: int = BOX_LINE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with an ellipsis."""
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _element(elem: ElementType | None) -> str:
    return "?" if elem is None else type_string(elem)


def _dims(shape: tuple[Any, ...]) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def type_label(value_type: ValueType | None) -> str:
    """A value's type as an edge shows it: ``float[1,3,224,224]``, ``seq(int64[?])``."""
    if value_type is None:
        return "?"
    if isinstance(value_type, Tensor):
        shape = value_type.shape
        return _element(value_type.elem_type) + ("" if shape is None else _dims(shape))
    if isinstance(value_type, SparseTensor):
        shape = value_type.shape
        return "sparse " + _element(value_type.elem_type) + ("" if shape is None else _dims(shape))
    if isinstance(value_type, Sequence):
        return f"seq({type_label(value_type.elem)})"
    if isinstance(value_type, Optional):
        return f"optional({type_label(value_type.elem)})"
    if isinstance(value_type, Map):
        return f"map({type_string(value_type.key)},{type_label(value_type.value)})"
    return str(value_type)


def _size(count: int, elem: ElementType) -> str:
    try:
        itemsize = numpy_dtype(elem).itemsize
    except (KeyError, ValueError, TypeError):  # an element type without a numpy form
        return f"{count:,} values"
    size = float(count * itemsize)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def tensor_summary(tensor: ir.TensorData) -> str:
    """``float[64,3,7,7] 36.8 KB``: element type, shape and size, without reading the data."""
    count = int(np.prod(tensor.dims, dtype=np.float64)) if tensor.dims else 1
    return f"{_element(tensor.elem_type)}{_dims(tensor.dims)} {_size(count, tensor.elem_type)}"


def _tensor_values(tensor: ir.TensorData, limit: int) -> str:
    """The first ``limit`` values of a tensor, when it can be read."""
    try:
        array = np.asarray(tensor.array())
    except (OnnxcraftError, ValueError, OSError):  # a picture shows what it can
        return "(data not readable)"
    flat = array.reshape(-1)
    if flat.dtype.fields is not None:  # low-precision floats are structured arrays of bits
        return f"({flat.size} values)"
    shown = ", ".join(_scalar(v) for v in flat[:limit].tolist())
    more = f", … ({flat.size} values)" if flat.size > limit else ""
    return f"[{shown}{more}]"


def _scalar(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, bytes):
        return repr(value.decode("utf-8", "replace"))
    return repr(value) if isinstance(value, str) else str(value)


def _graph_text(graph: Any) -> str:
    if isinstance(graph, ir.Graph):
        return f"graph {graph.name!r} ({len(graph.nodes)} nodes)"
    return "graph"


def attribute_text(attr: ir.Attribute, *, limit: int = _FULL_LIST) -> str:
    """The whole value of an attribute, as the side panel shows it (long lists cut)."""
    if attr.ref:
        return f"@{attr.ref}"
    value = attr.value
    if isinstance(value, ir.TensorData):
        return f"{tensor_summary(value)} = {_tensor_values(value, _FULL_VALUES)}"
    if isinstance(value, ir.Graph):
        return _graph_text(value)
    if isinstance(value, ir.SparseData):
        return f"sparse {_element(value.values.elem_type)}{_dims(value.dims)}"
    if isinstance(value, (list, tuple)):
        items = [_item_text(v) for v in value[:limit]]
        more = f", … ({len(value)} items)" if len(value) > limit else ""
        return "[" + ", ".join(items) + more + "]"
    return _item_text(value)


def _item_text(value: Any) -> str:
    if isinstance(value, ir.TensorData):
        return tensor_summary(value)
    if isinstance(value, ir.Graph):
        return _graph_text(value)
    if isinstance(value, (Tensor, SparseTensor, Sequence, Optional, Map)):
        return type_label(value)
    return _scalar(value)


def short_attribute(attr: ir.Attribute) -> str:
    """``name=value`` for a box: short lists whole, tensors summarised, then clipped."""
    value = attr.value
    if isinstance(value, ir.TensorData):
        count = int(np.prod(value.dims, dtype=np.float64)) if value.dims else 1
        text = tensor_summary(value)
        if count <= 4:
            text = _tensor_values(value, 4)
        return clip(f"{attr.name}={text}")
    return clip(f"{attr.name}={attribute_text(attr, limit=12)}")
