"""Python source for node attributes, checked against what the DSL can write back.

An operator of the standard takes only the attributes of its signature, each of its spec's
type; a value the DSL would normalize into something else (an INT where the spec says FLOAT,
a string that is not UTF-8, a sparse tensor) cannot round-trip, so it is a
CodeGenerationError naming the node and the attribute rather than code that rebuilds another
model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from onnxcraft.errors import CodeGenerationError
from onnxcraft.ir import Attribute, TensorData
from onnxcraft.pycode.layout import Expr, Group
from onnxcraft.pycode.values import Imports, float_text, string_text, type_expr

__all__ = ["attribute_expr"]


def _text(where: str, attr: Attribute, value: Any) -> str:
    if isinstance(value, bytes):
        raise CodeGenerationError(
            f"to_python: {where}: attribute {attr.name!r} holds bytes that are not UTF-8 "
            f"({value[:20]!r}); the DSL takes text attributes as str"
        )
    return string_text(value)


def attribute_expr(
    where: str,
    attr: Attribute,
    imports: Imports,
    tensor: Callable[[TensorData], Expr],
) -> Expr:
    """The keyword argument's value for ``attr`` (graphs are the caller's business)."""
    kind, value = attr.type, attr.value
    if kind == "INT":
        return str(int(value))
    if kind == "FLOAT":
        return float_text(float(value), np.float32)
    if kind == "STRING":
        return _text(where, attr, value)
    if kind == "INTS":
        return Group("[", tuple(str(int(v)) for v in value), "]", fill=True)
    if kind == "FLOATS":
        return Group("[", tuple(float_text(float(v), np.float32) for v in value), "]", fill=True)
    if kind == "STRINGS":
        return Group("[", tuple(_text(where, attr, v) for v in value), "]")
    if kind == "TENSOR":
        return tensor(value)
    if kind == "TENSORS":
        return Group("[", tuple(tensor(t) for t in value), "]")
    if kind == "TYPE_PROTO":
        return type_expr(value, imports)
    if kind == "TYPE_PROTOS":
        return Group("[", tuple(type_expr(t, imports) for t in value), "]")
    raise CodeGenerationError(
        f"to_python: {where}: attribute {attr.name!r} of type {kind} cannot be written with the DSL"
    )
