"""Shape arithmetic that the indexing rules and kernels share.

GatherND's output layout is slicing and concatenation only, so one function serves the kernel's
ints and the rule's dims (symbols and unknown dims pass through).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

__all__ = ["gather_nd_shape"]

T = TypeVar("T")


def gather_nd_shape(
    data: Sequence[T], indices: Sequence[T], depth: int, batch_dims: int
) -> tuple[T, ...]:
    """GatherND's output shape: ``indices.shape[:-1] + data.shape[batch_dims + depth:]``.

    Each index tuple (the last axis of ``indices``, ``depth`` long) picks a slice of ``data``
    after the ``batch_dims`` leading axes the two share.
    """
    return (*indices[:-1], *data[batch_dims + depth :])
