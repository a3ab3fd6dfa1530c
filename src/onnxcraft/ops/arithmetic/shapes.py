"""Legacy (opset < 7) broadcasting of B into A, decided alike by the rules and the kernels.

Add, Sub, Mul, Div (1 and 6), Pow-1 and And, Or, Xor, Equal, Greater, Less (1) take
``broadcast`` and ``axis``. With ``broadcast=0`` the shapes must be equal. With ``broadcast=1``
B is stretched to A's shape, and the standard allows two kinds of B: one of a single element (a
scalar, or any shape of ones with rank at most A's), or one whose shape is a contiguous run of
A's shape, starting at ``axis`` (by default, A's trailing axes). The result has A's shape.
Each side words its own error from the problem these functions describe.
"""

from __future__ import annotations

from collections.abc import Sequence

from onnxcraft.types import Dim

__all__ = ["is_single_element", "legacy_broadcast_problem", "legacy_broadcast_start"]


def _differ(a: Dim, b: Dim) -> bool:
    """True when two dims are known to differ (unknown or symbolic dims may be equal)."""
    return type(a) is int and type(b) is int and a != b


def legacy_broadcast_start(a_rank: int, b_rank: int, axis: int | None) -> int:
    """The axis of A where B's run of axes starts (``axis`` may count from the end)."""
    if axis is None:
        return a_rank - b_rank
    return axis + a_rank if axis < 0 else axis


def is_single_element(a: Sequence[Dim], b: Sequence[Dim]) -> bool:
    """B holds one element (every dim is 1) and its rank is at most A's."""
    return len(b) <= len(a) and all(d == 1 for d in b)


def legacy_broadcast_problem(
    a: Sequence[Dim], b: Sequence[Dim], broadcast: int, axis: int | None
) -> str | None:
    """What makes B unfit for A under the legacy rule, or None when it fits (or may fit)."""
    if not broadcast:
        if len(a) != len(b) or any(_differ(x, y) for x, y in zip(a, b, strict=True)):
            return (
                f"A of shape {list(a)} and B of shape {list(b)} must be equal with "
                "broadcast=0 (set broadcast=1 to stretch B)"
            )
        return None
    if len(a) == len(b) and not any(_differ(x, y) for x, y in zip(a, b, strict=True)):
        return None
    if is_single_element(a, b):
        return None
    if axis is not None and not -len(a) <= axis < len(a):
        return f"axis={axis} is out of range for A of rank {len(a)}"
    start = legacy_broadcast_start(len(a), len(b), axis)
    where = "A's trailing axes" if axis is None else f"axis {start} of A"
    run = a[max(start, 0) : start + len(b)]
    if start < 0 or start + len(b) > len(a) or any(_differ(x, y) for x, y in zip(run, b)):
        return (
            f"with broadcast=1, B of shape {list(b)} must match a run of A's shape {list(a)} "
            f"starting at {where} (or hold a single element)"
        )
    return None
