"""Value types: what a Var (or a graph input/output) can hold.

Types are small frozen dataclasses, hashable and comparable, independent of protobuf. A tensor
shape is ``None`` when even the rank is unknown, else a tuple of dims, each an ``int`` (static),
a ``str`` (a named symbol such as ``"N"``) or ``None`` (unknown).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of, type_string
from onnxcraft.errors import ArgumentError

__all__ = [
    "Dim",
    "Map",
    "Optional",
    "Sequence",
    "Shape",
    "SparseTensor",
    "Tensor",
    "ValueType",
    "as_element_type",
    "as_shape",
    "format_shape",
    "shared_tensor",
]

Dim = int | str | None
Shape = tuple[Dim, ...] | None


_INT64_MAX = 2**63 - 1


def as_element_type(dtype: Any, *, what: str = "dtype") -> ElementType | None:
    """Read a dtype-like (numpy dtype, type, name, ElementType) as an ONNX element type."""
    if dtype is None:
        return None
    if type(dtype) is ElementType:
        return None if dtype is ElementType.UNDEFINED else dtype
    try:
        elem = element_type_of(dtype)
    # numpy's dtype parser raises TypeError, ValueError and even SyntaxError (np.dtype(","));
    # an int out of the enum's range, ValueError.
    except (TypeError, ValueError, SyntaxError, OverflowError) as exc:
        raise ArgumentError(
            f"{what}: expected a numpy dtype-like or onnxcraft element type, got {dtype!r}"
        ) from exc
    return None if elem == ElementType.UNDEFINED else elem


def as_shape(shape: Iterable[Any] | None, *, what: str = "shape") -> Shape:
    """Validate a user-given shape: a sequence of int (0 to 2**63-1), str or None dims, or None."""
    if shape is None:
        return None
    if type(shape) is tuple and all(type(d) is int and 0 <= d <= _INT64_MAX for d in shape):
        return shape  # the common case, already valid
    if isinstance(shape, (str, bytes)):
        raise ArgumentError(f"{what}: expected a sequence of dims, got the string {shape!r}")
    if isinstance(shape, np.ndarray) and shape.ndim != 1:
        raise ArgumentError(
            f"{what}: expected a sequence of dims, got an array of shape {shape.shape}"
        )
    try:
        items = list(shape)
    except TypeError:
        raise ArgumentError(
            f"{what}: expected a sequence of dims (tuple or list), got {type(shape).__name__} "
            f"{shape!r}"
        ) from None
    return tuple(_as_dim(dim, what) for dim in items)


def _as_dim(dim: Any, what: str) -> Dim:
    if dim is None:
        return None
    if isinstance(dim, str):
        if not dim:
            raise ArgumentError(f"{what}: a symbolic dim must be a non-empty string")
        return dim
    if isinstance(dim, (bool, np.bool_)) or not hasattr(dim, "__index__"):
        raise ArgumentError(f"{what}: a dim must be an int, a str symbol or None, got {dim!r}")
    try:
        value = operator.index(dim)
    except TypeError:  # an array with __index__ that is not a scalar
        raise ArgumentError(
            f"{what}: a dim must be an int, a str symbol or None, got {dim!r}"
        ) from None
    if not 0 <= value <= _INT64_MAX:
        raise ArgumentError(f"{what}: dims must be between 0 and 2**63-1, got {value}")
    return value


def format_shape(shape: Shape) -> str:
    """A shape as ``[N, 3, ?]`` (``?`` an unknown dim); ``[...]`` when the rank is unknown."""
    if shape is None:
        return "[...]"
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def _tensor_text(kind: str, elem_type: ElementType | None, shape: Shape) -> str:
    """``tensor(float)[N, 3]``; with the rank unknown, just ``tensor(float)``, as ONNX type
    strings write a tensor of any shape."""
    elem = "?" if elem_type is None else type_string(elem_type)
    return f"{kind}({elem})" if shape is None else f"{kind}({elem}){format_shape(shape)}"


@dataclass(frozen=True, slots=True)
class Tensor:
    """A dense tensor: element type (None when unknown) and shape (None when rank unknown)."""

    elem_type: ElementType | None = None
    shape: Shape = None

    def __init__(self, dtype: Any = None, shape: Iterable[Any] | None = None) -> None:
        object.__setattr__(self, "elem_type", as_element_type(dtype))
        object.__setattr__(self, "shape", as_shape(shape))

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    def __str__(self) -> str:
        return _tensor_text("tensor", self.elem_type, self.shape)


_new_object = object.__new__
# The setters of a Tensor's two slots, for the objects shared_tensor makes (a frozen
# dataclass refuses plain assignment; a model's first call makes one per distinct type).
_set_elem_type = vars(Tensor)["elem_type"].__set__
_set_shape = vars(Tensor)["shape"].__set__

_SHARED_TENSORS: dict[tuple[Any, Shape], Tensor] = {}
_SHARED_KEPT = 4096


def shared_tensor(elem_type: ElementType | None, shape: Shape) -> Tensor:
    """``Tensor(elem_type, shape)`` from parts known to be valid (an element type or None, a
    tuple of valid dims or None), one object per distinct type.

    A graph's values share a handful of types: building 100k nodes would otherwise keep 100k
    equal Tensor objects alive, each one more for the garbage collector to walk while the
    user's code builds (half the cost of an operator call at that size).
    """
    key = (elem_type, shape)
    found = _SHARED_TENSORS.get(key)
    if found is None:
        if len(_SHARED_TENSORS) >= _SHARED_KEPT:
            _SHARED_TENSORS.clear()
        found = _new_object(Tensor)
        _set_elem_type(found, elem_type)  # (the slots' own setters: 0.6x object.__setattr__'s)
        _set_shape(found, shape)
        _SHARED_TENSORS[key] = found
    return found


@dataclass(frozen=True, slots=True)
class SparseTensor:
    """A sparse tensor: element type and dense shape."""

    elem_type: ElementType | None = None
    shape: Shape = None

    def __init__(self, dtype: Any = None, shape: Iterable[Any] | None = None) -> None:
        object.__setattr__(self, "elem_type", as_element_type(dtype))
        object.__setattr__(self, "shape", as_shape(shape))

    def __str__(self) -> str:
        return _tensor_text("sparse_tensor", self.elem_type, self.shape)


@dataclass(frozen=True, slots=True)
class Sequence:
    """A sequence whose elements all have type ``elem`` (None when unknown)."""

    elem: ValueType | None = None

    def __str__(self) -> str:
        return f"seq({'?' if self.elem is None else self.elem})"


@dataclass(frozen=True, slots=True)
class Optional:
    """A value of type ``elem`` that may be absent."""

    elem: ValueType | None = None

    def __str__(self) -> str:
        return f"optional({'?' if self.elem is None else self.elem})"


@dataclass(frozen=True, slots=True)
class Map:
    """A map from int or string keys to values of type ``value``."""

    key: ElementType
    value: ValueType | None = None

    def __init__(self, key: Any, value: ValueType | None = None) -> None:
        elem = as_element_type(key, what="Map key")
        if elem is None:
            raise ArgumentError("Map key: an element type is required")
        object.__setattr__(self, "key", elem)
        object.__setattr__(self, "value", value)

    def __str__(self) -> str:
        value = "?" if self.value is None else str(self.value)
        return f"map({type_string(self.key)}, {value})"


ValueType = Tensor | SparseTensor | Sequence | Optional | Map
