"""What generated opset modules call: the only code they depend on.

Generated functions pack their arguments and call :func:`emit1`, :func:`emit_tuple` or
:func:`emit_named`; every check and all inference happen in the core. :func:`rebind` lets the
module of opset N re-export an unchanged operator from opset N-1 while recording opset N on the
nodes it emits (the function's code is shared, only its module-level ``_OPSET`` differs).
:func:`opset_module` finds the generated module of a domain and opset; it fills the core's
hook of that name, through which the Python operators on Var reach the default opset.
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, TypeVar

import numpy.typing as npt

from onnxcraft.core import hooks
from onnxcraft.core.emit import REQUIRED as _REQUIRED_SENTINEL
from onnxcraft.core.emit import emit
from onnxcraft.core.types import Map, Optional, SparseTensor, Tensor
from onnxcraft.core.types import Sequence as SequenceType
from onnxcraft.core.var import Body, Var
from onnxcraft.dtypes import ElementType

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
    "opset_module",
    "rebind",
]

VarLike = Var | npt.ArrayLike
DTypeLike = npt.DTypeLike | ElementType
GraphLike = Callable[..., Any] | Body
TypeLike = Tensor | SparseTensor | SequenceType | Optional | Map

F = TypeVar("F", bound=Callable[..., Any])

# Default of required attributes: leaving one out is an OpAttributeError naming the operator
# (Python's own "missing keyword-only argument" would not say which ONNX rule was broken).
REQUIRED: Any = _REQUIRED_SENTINEL
N = TypeVar("N")

_rebound_globals: dict[tuple[int, int], dict[str, Any]] = {}


def emit1(
    key: tuple[str, str, int], opset: int, inputs: Sequence[Any], attributes: dict[str, Any]
) -> Var:
    return emit(key, opset, inputs, attributes)[0]


def emit_tuple(
    key: tuple[str, str, int],
    opset: int,
    inputs: Sequence[Any],
    attributes: dict[str, Any],
    count: int | None,
) -> tuple[Var, ...]:
    return emit(key, opset, inputs, attributes, count)


def emit_named(
    key: tuple[str, str, int],
    opset: int,
    inputs: Sequence[Any],
    attributes: dict[str, Any],
    result: Callable[..., N],
) -> N:
    return result(*emit(key, opset, inputs, attributes))


def rebind(fn: F, opset: int) -> F:
    """The same operator function, emitting nodes that record ``opset``."""
    source = fn.__globals__
    key = (id(source), opset)
    namespace = _rebound_globals.get(key)
    if namespace is None:
        namespace = dict(source)
        namespace["_OPSET"] = opset
        _rebound_globals[key] = namespace
    clone = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
    clone.__kwdefaults__ = fn.__kwdefaults__
    clone.__doc__ = fn.__doc__
    clone.__annotations__ = fn.__annotations__
    clone.__module__ = fn.__module__
    clone.__qualname__ = fn.__qualname__
    return clone  # type: ignore[return-value]


@cache
def opset_module(domain: str, opset: int) -> types.ModuleType:
    """The generated module of ``domain``'s operators at ``opset`` (imported on first use)."""
    package = "ai.onnx" if domain == "" else domain
    return importlib.import_module(f"onnxcraft.opset.{package}.v{opset}")


hooks.opset_module.fill(opset_module)
