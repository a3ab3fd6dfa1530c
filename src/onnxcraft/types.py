"""Value types: what a Var (or a graph input/output) can hold.

Types are small frozen dataclasses, hashable and comparable, independent of protobuf. A tensor
shape is ``None`` when even the rank is unknown, else a tuple of dims, each an ``int`` (static),
a ``str`` (a named symbol such as ``"N"``) or ``None`` (unknown).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from onnxcraft.dtypes import ElementType, element_type_of, type_string
from onnxcraft.errors import BuildError

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
]

Dim = int | str | None
Shape = tuple[Dim, ...] | None


def as_element_type(dtype: Any, *, what: str = "dtype") -> ElementType | None:
    """Read a dtype-like (numpy dtype, type, name, ElementType) as an ONNX element type."""
    if dtype is None:
        return None
    if type(dtype) is ElementType:
        return None if dtype is ElementType.UNDEFINED else dtype
    try:
        elem = element_type_of(dtype)
    except (TypeError, ValueError) as exc:
        raise BuildError(
            f"{what}: expected a numpy dtype-like or onnxcraft element type, got {dtype!r}"
        ) from exc
    return None if elem == ElementType.UNDEFINED else elem


def as_shape(shape: Iterable[Any] | None, *, what: str = "shape") -> Shape:
    """Validate a user-given shape: a sequence of int (>= 0), str or None dims, or None."""
    if shape is None:
        return None
    if type(shape) is tuple and all(type(d) is int and d >= 0 for d in shape):
        return shape  # the common case, already valid
    if isinstance(shape, (str, bytes)):
        raise BuildError(f"{what}: expected a sequence of dims, got the string {shape!r}")
    dims: list[Dim] = []
    for dim in shape:
        if dim is None or isinstance(dim, str):
            if isinstance(dim, str) and not dim:
                raise BuildError(f"{what}: a symbolic dim must be a non-empty string")
            dims.append(dim)
        elif (isinstance(dim, (int,)) and not isinstance(dim, bool)) or hasattr(dim, "__index__"):
            value = int(dim)
            if value < 0:
                raise BuildError(f"{what}: dims must be >= 0, got {value}")
            dims.append(value)
        else:
            raise BuildError(f"{what}: a dim must be an int, a str symbol or None, got {dim!r}")
    return tuple(dims)


def format_shape(shape: Shape) -> str:
    if shape is None:
        return "[?]"  # unknown rank
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


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
        elem = "?" if self.elem_type is None else type_string(self.elem_type)
        return f"tensor({elem}){format_shape(self.shape)}"


@dataclass(frozen=True, slots=True)
class SparseTensor:
    """A sparse tensor: element type and dense shape."""

    elem_type: ElementType | None = None
    shape: Shape = None

    def __init__(self, dtype: Any = None, shape: Iterable[Any] | None = None) -> None:
        object.__setattr__(self, "elem_type", as_element_type(dtype))
        object.__setattr__(self, "shape", as_shape(shape))

    def __str__(self) -> str:
        elem = "?" if self.elem_type is None else type_string(self.elem_type)
        return f"sparse_tensor({elem}){format_shape(self.shape)}"


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
            raise BuildError("Map key: an element type is required")
        object.__setattr__(self, "key", elem)
        object.__setattr__(self, "value", value)

    def __str__(self) -> str:
        value = "?" if self.value is None else str(self.value)
        return f"map({type_string(self.key)}, {value})"


ValueType = Tensor | SparseTensor | Sequence | Optional | Map
