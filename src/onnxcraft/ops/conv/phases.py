"""The taps of a strided 2-D convolution grouped by the stride phase they read, for the
prepared convolutions' ``phases`` layout (``fuse=True``, ``ops/conv/prepared.py``).

With stride s, the padded image splits into s_h x s_w phases (every s-th row and column from
each offset); tap (i, j) then reads phase ((i * d_h) mod s_h, (j * d_w) mod s_w) from row
(i * d_h) // s_h and column (j * d_w) // s_w on, a stride-1 window. The taps reading one
phase form a regular grid of offsets on it (along an axis, the kernel indices with the same
residue are spaced s / gcd(s, d) apart, so their offsets are spaced s / gcd(s, d) * d / s
apart): one overlapping view of the phase gives the windows of the whole class, one copy
instead of one per tap (a 7x7 stride-2 kernel: 4 classes instead of 49 taps).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

__all__ = ["TapClass", "tap_classes"]


@dataclass(frozen=True)
class _Axis:
    residue: int  # the phase read along this axis
    indices: tuple[int, ...]  # the kernel indices of the class, increasing
    offset: int  # the first index's offset in the phase
    step: int  # between successive indices' offsets


@dataclass(frozen=True)
class TapClass:
    """The taps reading one phase: kernel rows x kernel columns, at regular offsets."""

    phase: tuple[int, int]
    kernel_rows: tuple[int, ...]
    kernel_columns: tuple[int, ...]
    top: int  # the first row tap's first row in the phase
    left: int
    row_step: int  # phase rows between successive row taps
    column_step: int

    @property
    def rows(self) -> int:
        return len(self.kernel_rows)

    @property
    def columns(self) -> int:
        return len(self.kernel_columns)


def _axis_classes(kernel: int, stride: int, dilation: int) -> list[_Axis]:
    classes = []
    for residue in range(stride):
        indices = tuple(i for i in range(kernel) if i * dilation % stride == residue)
        if not indices:
            continue
        offsets = [i * dilation // stride for i in indices]
        step = offsets[1] - offsets[0] if len(offsets) > 1 else 1
        assert all(b - a == step for a, b in pairwise(offsets))  # a regular grid
        classes.append(_Axis(residue, indices, offsets[0], step))
    return classes


def tap_classes(
    kernel: tuple[int, ...], strides: tuple[int, ...], dilations: tuple[int, ...]
) -> list[TapClass]:
    """The classes of a 2-D kernel's taps by phase, rows' classes outermost."""
    return [
        TapClass((r.residue, c.residue), r.indices, c.indices, r.offset, c.offset, r.step, c.step)
        for r in _axis_classes(kernel[0], strides[0], dilations[0])
        for c in _axis_classes(kernel[1], strides[1], dilations[1])
    ]
