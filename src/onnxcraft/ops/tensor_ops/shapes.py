"""Shape arithmetic that the tensor_ops rules and kernels share.

Pad's ``pads`` layout (every begin, then every end, in the order of the padded axes) works on
any entries: the kernel's ints and the rule's dims, which may be symbols or unknown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

__all__ = ["pads_by_axis"]

T = TypeVar("T")


def pads_by_axis(pads: Sequence[T], axes: Sequence[int]) -> dict[int, tuple[T, T]]:
    """(begin, end) of each padded axis: ``pads`` lists every begin, then every end, in the
    order of ``axes`` (the caller has checked there are two per axis)."""
    count = len(axes)
    return {axis: (pads[i], pads[count + i]) for i, axis in enumerate(axes)}
