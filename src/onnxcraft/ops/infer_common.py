"""Shape arithmetic shared by the rule families: broadcasting, axes, dims, symbolic entries.

Dims are ``int`` (static), ``str`` (a named symbol) or ``None`` (unknown); a shape is ``None``
when the rank is unknown. Every function here answers "unknown" rather than guessing. A symbol
stands for one value wherever it appears, so ``N - N`` is 0 and ``N * 1`` is ``N``; nothing
else is assumed about it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from onnxcraft.dtypes import ElementType
from onnxcraft.errors import InferenceError
from onnxcraft.ops.infer_api import VALUE_LIMIT, InferenceContext
from onnxcraft.types import Dim, Shape, Tensor, ValueType, shared_tensor

__all__ = [
    "broadcast",
    "broadcast_many",
    "dim_product",
    "dim_sum",
    "element_type_attr",
    "entries_binary",
    "entry_add",
    "entry_div",
    "entry_max",
    "entry_min",
    "entry_mul",
    "entry_sub",
    "merge_dim",
    "merge_shape",
    "normalize_axis",
    "same_as_input",
    "shape_of",
    "symbolic_product",
    "tensor",
    "unknown_dims",
]


def tensor(elem: ElementType | None, shape: Shape) -> Tensor:
    """A tensor type from parts the rules have already validated (no re-checking; equal types
    share one object, see :func:`onnxcraft.types.shared_tensor`)."""
    return shared_tensor(elem, shape)


def unknown_dims(rank: Dim) -> Shape:
    """A shape of ``rank`` unknown dims, where ``rank`` was read from a claimed length (the
    dim of a shape input): a rank past VALUE_LIMIT, or one not known, is left unknown rather
    than materialized, so a hostile length of 2**62 costs nothing."""
    if type(rank) is not int or not 0 <= rank <= VALUE_LIMIT:
        return None
    return (None,) * rank


def element_type_attr(ctx: InferenceContext, name: str) -> ElementType | None:
    """The element type an attribute (``to``, ``dtype`` ...) names; None when not given."""
    value = ctx.attr(name)
    if value is None:
        return None
    try:
        elem = ElementType(int(value))
    except (TypeError, ValueError):
        elem = ElementType.UNDEFINED
    if elem == ElementType.UNDEFINED:
        raise ctx.fail(f"attribute {name!r} must name an ONNX element type, got {value!r}")
    return elem


def shape_of(t: ValueType | None) -> Shape:
    return t.shape if isinstance(t, Tensor) else None


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
    if a == b:
        return a
    # The common case of a bias or scale: one shape ends the other (equal dims broadcast to
    # themselves, missing leading ones count as 1).
    if len(b) <= len(a) and a[len(a) - len(b) :] == b:
        return a
    if len(a) < len(b) and b[len(b) - len(a) :] == a:
        return b
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


def same_as_input(index: int = 0) -> Callable[[InferenceContext], list[ValueType | None]]:
    """A rule: one output with the type of input ``index``."""

    def rule(ctx: InferenceContext) -> list[ValueType | None]:
        t = ctx.input_types[index] if index < len(ctx.input_types) else None
        return [t]

    return rule


# -- arithmetic on entries of shape-like values (ints, symbols, unknowns) --------------------------


def entry_add(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a + b
    if a == 0:
        return b
    return a if b == 0 else None


def entry_sub(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a - b
    if b == 0:
        return a
    return 0 if a is not None and a == b else None


def entry_mul(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a * b
    if a == 0 or b == 0:
        return 0
    if a == 1:
        return b
    return a if b == 1 else None


def entry_div(a: Dim, b: Dim) -> Dim:
    """Integer division truncating toward zero, as ONNX divides integers."""
    if type(a) is int and type(b) is int:
        if b == 0:
            return None
        quotient = abs(a) // abs(b)
        return quotient if (a >= 0) == (b > 0) else -quotient
    return a if b == 1 else None


def entry_max(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return max(a, b)
    return a if a is not None and a == b else None


def entry_min(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return min(a, b)
    return a if a is not None and a == b else None


def entries_binary(
    fn: Callable[[Dim, Dim], Dim], a: Sequence[Dim], b: Sequence[Dim]
) -> list[Dim] | None:
    """``fn`` applied entry by entry to two 0-D/1-D values, broadcasting a single entry."""
    if len(a) == len(b):
        return [fn(x, y) for x, y in zip(a, b)]
    if len(a) == 1:
        return [fn(a[0], y) for y in b]
    if len(b) == 1:
        return [fn(x, b[0]) for x in a]
    return None


def symbolic_product(dims: Sequence[Dim]) -> Dim:
    """The product of dims: an int, or the one symbol when every other dim is 1 (or 0 if any
    dim is 0); None otherwise."""
    product = dim_product(dims)
    if product is not None:
        return product
    if 0 in dims:
        return 0
    rest = [d for d in dims if d != 1]
    return rest[0] if len(rest) == 1 and isinstance(rest[0], str) else None
