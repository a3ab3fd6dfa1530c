"""Output sizes of Resize and Upsample, computed alike by the rule and the kernel.

Integer arithmetic on known sizes only: the rule calls these where the dims are ints and keeps
its own handling of symbolic and unknown dims; the kernel calls them once per node.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["kept_aspect_sizes", "scaled_size", "size_ratio"]


def scaled_size(size: int, scale: float) -> int:
    """An axis of ``size`` resized by ``scale``: ``floor(size * scale)``."""
    return math.floor(scale * size)


def size_ratio(wanted: int, size: int) -> float:
    """The scale that takes ``size`` to ``wanted`` (1 for an empty axis, which stays empty)."""
    return wanted / size if size else 1.0


def kept_aspect_sizes(
    sizes: Sequence[int], wanted: Sequence[int], policy: str
) -> tuple[float, list[int]]:
    """One scale for every resized axis and the sizes it gives ("not_larger" / "not_smaller").

    The scale is the smallest ("not_larger") or largest ("not_smaller") of the per-axis ratios
    ``wanted / size``; each output size is ``size * scale`` rounded half up.
    """
    ratios = [size_ratio(w, n) for w, n in zip(wanted, sizes, strict=True)]
    common = min(ratios) if policy == "not_larger" else max(ratios)
    return common, [int(common * n + 0.5) for n in sizes]
