"""What generated opset modules call: the only code they depend on.

Generated functions pack their arguments and call :func:`emit1`, :func:`emit_tuple` or
:func:`emit_named` with their module's opset; every check and all inference happen in the core.
"""

from __future__ import annotations

import difflib
import importlib
import types
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, TypeVar

import numpy.typing as npt

from onnxcraft.core import hooks
from onnxcraft.core.emit import REQUIRED as _REQUIRED_SENTINEL
from onnxcraft.core.emit import emit
from onnxcraft.core.var import Body, Var
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import OpAttributeError
from onnxcraft.types import Map, Optional, SparseTensor, Tensor
from onnxcraft.types import Sequence as SequenceType

__all__ = [
    "DTypeLike",
    "ElementType",
    "GraphLike",
    "REQUIRED",
    "TypeLike",
    "VarLike",
    "emit1",
    "emit_named",
    "emit_tuple",
    "unknown_attributes",
]

VarLike = Var | npt.ArrayLike
DTypeLike = npt.DTypeLike | ElementType
GraphLike = Callable[..., Any] | Body
TypeLike = Tensor | SparseTensor | SequenceType | Optional | Map

# Default of required attributes: leaving one out is an OpAttributeError naming the operator
# (Python's own "missing keyword-only argument" would not say which ONNX rule was broken).
REQUIRED: Any = _REQUIRED_SENTINEL
N = TypeVar("N")


def unknown_attributes(
    key: tuple[str, str, int], attributes: dict[str, Any], unknown: dict[str, Any]
) -> None:
    """Refuse keyword arguments the operator version has no attribute for, naming its own
    (Python's "unexpected keyword argument" would not say which attributes exist)."""
    domain, op_type, since = key
    names = ", ".join(repr(name) for name in unknown)
    known = ", ".join(repr(name) for name in attributes) or "none"
    hints = [
        f"{match[0]!r} for {name!r}"
        for name in unknown
        if (match := difflib.get_close_matches(name, list(attributes), n=1))
    ]
    hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
    raise OpAttributeError(
        f"{op_type} ({domain or 'ai.onnx'} version {since}): no attribute {names}{hint}; "
        f"its attributes are: {known}"
    )


def emit1(
    key: tuple[str, str, int],
    opset: int,
    inputs: Sequence[Any],
    attributes: dict[str, Any],
    unknown: dict[str, Any] | None = None,
) -> Var:
    if unknown:
        unknown_attributes(key, attributes, unknown)
    return emit(key, opset, inputs, attributes)[0]


def emit_tuple(
    key: tuple[str, str, int],
    opset: int,
    inputs: Sequence[Any],
    attributes: dict[str, Any],
    count: int | None,
    unknown: dict[str, Any] | None = None,
) -> tuple[Var, ...]:
    if unknown:
        unknown_attributes(key, attributes, unknown)
    return emit(key, opset, inputs, attributes, count)


def emit_named(
    key: tuple[str, str, int],
    opset: int,
    inputs: Sequence[Any],
    attributes: dict[str, Any],
    result: Callable[..., N],
    unknown: dict[str, Any] | None = None,
) -> N:
    if unknown:
        unknown_attributes(key, attributes, unknown)
    return result(*emit(key, opset, inputs, attributes))
