"""Shape arithmetic shared by the rule families: broadcasting, axes, dims.

Dims are ``int`` (static), ``str`` (a named symbol) or ``None`` (unknown); a shape is ``None``
when the rank is unknown. Every function here answers "unknown" rather than guessing.
"""

from __future__ import annotations

from collections.abc import Sequence

from onnxcraft.core.types import Dim, Shape, Tensor, ValueType
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import InferenceError
from onnxcraft.infer.registry import InferenceContext

__all__ = [
    "broadcast",
    "broadcast_many",
    "dim_product",
    "dim_sum",
    "merge_dim",
    "merge_shape",
    "normalize_axis",
    "same_as_input",
    "tensor",
]


def tensor(elem: ElementType | None, shape: Shape) -> Tensor:
    return Tensor(elem, shape)


def _broadcast_dim(a: Dim, b: Dim) -> Dim:
    if a == b:
        return a
    if a == 1:
        return b
    if b == 1:
        return a
    if isinstance(a, int) and isinstance(b, int):
        raise ValueError(f"{a} vs {b}")
    # A static dim other than 1 decides the result whatever the other one is.
    if isinstance(a, int):
        return a
    if isinstance(b, int):
        return b
    return None


def broadcast(op: str, a: Shape, b: Shape, names: tuple[str, str] = ("A", "B")) -> Shape:
    """Numpy-style (multidirectional) broadcasting of two shapes."""
    if a is None or b is None:
        return None
    rank = max(len(a), len(b))
    pa = (1,) * (rank - len(a)) + tuple(a)
    pb = (1,) * (rank - len(b)) + tuple(b)
    result: list[Dim] = []
    for axis, (x, y) in enumerate(zip(pa, pb)):
        try:
            result.append(_broadcast_dim(x, y))
        except ValueError:
            raise InferenceError(
                f"{op}: cannot broadcast {names[0]} {list(a)} with {names[1]} {list(b)}: "
                f"dimension {axis - rank} is {x} vs {y}"
            ) from None
    return tuple(result)


def broadcast_many(op: str, shapes: Sequence[Shape]) -> Shape:
    result: Shape = ()
    for i, shape in enumerate(shapes):
        result = broadcast(op, result, shape, ("inputs", f"input {i}")) if i else shape
    return result


def merge_dim(a: Dim, b: Dim) -> Dim:
    """The dim known to both facts, or None when they disagree."""
    if a == b:
        return a
    if a is None:
        return b
    if b is None:
        return a
    return None


def merge_shape(a: Shape, b: Shape) -> Shape:
    """The shape consistent with both (used to join If branches, Loop iterations)."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def dim_sum(dims: Sequence[Dim]) -> int | None:
    total = 0
    for d in dims:
        if not isinstance(d, int):
            return None
        total += d
    return total


def dim_product(dims: Sequence[Dim]) -> int | None:
    result = 1
    for d in dims:
        if not isinstance(d, int):
            return None
        result *= d
    return result


def normalize_axis(ctx: InferenceContext, axis: int, rank: int, arg: str = "axis") -> int:
    if not -rank <= axis < max(rank, 1):
        raise ctx.fail(f"{arg}={axis} is out of range for an input of rank {rank}")
    return axis + rank if axis < 0 else axis


def same_as_input(index: int = 0) -> object:
    """A rule: one output with the type of input ``index``."""

    def rule(ctx: InferenceContext) -> list[ValueType | None]:
        t = ctx.input_types[index] if index < len(ctx.input_types) else None
        return [t]

    return rule
