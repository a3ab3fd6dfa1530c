"""The im2col's columns copied straight from the images, for the prepared convolutions
(``fuse=True``, ``ops/conv/prepared.py``).

The im2col layout copies each tap's windows of a padded image into the rows of a working
array: zeroing the padded image, copying the images into it, then the windows out of it.
But which entries of the columns fall in the padding follows from the shape alone: for tap
(i, j), output rows r with 0 <= r * sh + i * dh - top < H and likewise for the columns read
the image, a rectangle of the output grid; the rest is padding. So the columns here live in
working arrays of their own kind (shared by the convolutions of the same input shape,
geometry and type, one set per thread), made once with zeros in the padding and a row of
ones for the bias, and a call copies each tap's rectangle from a strided slice of the
images, and nothing else: no padded image (SqueezeNet's 3x3 expands: 0.58-0.80x the padded
image's copies with the windows' one copy, measured alone). The entries are the padded
image's, so the products are the same bits.

Taken for kernels of at most ``_TAPS`` taps with some padding, on outputs of at least
``_POSITIONS`` positions: each tap is one numpy copy, and with many taps (Inception's 5x5)
one copy of every tap's windows through one strided view ran faster than copies tap by tap;
on small outputs (Inception's 14 x 14 ones at batch 1) the padded image is small, and the
columns of their own kind, out of cache where the shared working array was in it, made the
convolutions 1.06-1.12x slower inside the model.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from onnxcraft.ops.conv.scratch import WorkingArrays
from onnxcraft.ops.im2col import WindowGeometry

__all__ = ["ImageColumns", "image_columns"]

_TAPS = 9
_POSITIONS = 700  # SqueezeNet's 27 x 27 and 55 x 55, ResNet's 28 x 28 and 56 x 56


class ImageColumns:
    """The columns (N, G, C/G * kh * kw [+ 1], Ho * Wo) of images of one shape (N, C, H, W),
    copied tap by tap from the images into working arrays of their kind."""

    def __init__(
        self,
        shape: tuple[int, ...],
        dtype: np.dtype[Any],
        geom: WindowGeometry,
        groups: int,
        ones: int,
    ) -> None:
        n, c, h, w = shape
        (kh, kw), (sh, sw), (dh, dw) = geom.kernel, geom.strides, geom.dilations
        (top, left), (ho, wo) = geom.pads_begin, geom.out_shape
        self.geom, self.dtype, self.ones = geom, dtype, ones
        self.grouped = (n, groups, c // groups, h, w)
        self.taps = (c // groups) * kh * kw
        self.shape = (n, groups, self.taps + ones, ho * wo)
        self.windows = (n, groups, c // groups, kh, kw, ho, wo)  # the taps' rows, unfolded
        self.kind = f"columns {shape} {dtype.str} {geom} {groups} {ones}"
        # per tap: where its rectangle lies in the columns (N, G, C/G, kh, kw, Ho, Wo), and
        # the strided slice of the grouped images (N, G, C/G, H, W) it copies
        self.pieces: list[tuple[tuple[Any, ...], tuple[Any, ...]]] = []
        every = slice(None)
        for i in range(kh):
            r0, r1 = _inside(ho, sh, i * dh - top, h)
            for j in range(kw):
                q0, q1 = _inside(wo, sw, j * dw - left, w)
                if r1 <= r0 or q1 <= q0:
                    continue
                rows = slice(r0 * sh + i * dh - top, (r1 - 1) * sh + i * dh - top + 1, sh)
                columns = slice(q0 * sw + j * dw - left, (q1 - 1) * sw + j * dw - left + 1, sw)
                self.pieces.append(
                    (
                        (every, every, every, i, j, slice(r0, r1), slice(q0, q1)),
                        (every, every, every, rows, columns),
                    )
                )
        self._local = threading.local()  # this thread's views of its working arrays

    def _views(self, work: WorkingArrays) -> tuple[Any, ...] | None:
        taken = work.take_kind(self.kind, self.shape, self.dtype)
        if taken is None:
            return None
        cols, made = taken
        if made:
            cols[...] = 0  # the padding's entries, never written again
            if self.ones:
                cols[:, :, self.taps] = 1  # multiplies the bias, the weights' last column
        taps = cols[:, :, : self.taps].reshape(self.windows)
        targets = [(taps[where], source) for where, source in self.pieces]
        views = (work.blocks[self.kind], cols, targets)
        self._local.views = views
        return views

    def fill(self, x: np.ndarray, work: WorkingArrays) -> np.ndarray | None:
        """The columns of images ``x`` (of this shape), in this thread's working array (None
        when this thread has no room left for arrays of their kind)."""
        views = getattr(self._local, "views", None)
        if views is None or views[0] is not work.blocks.get(self.kind):
            views = self._views(work)
            if views is None:
                return None
        _, cols, targets = views
        images = x.reshape(self.grouped)
        for target, source in targets:
            target[...] = images[source]
        return cols  # type: ignore[no-any-return]


def _inside(out: int, stride: int, offset: int, size: int) -> tuple[int, int]:
    """The output positions ``[first, stop)`` whose tap at ``offset`` (from the padded
    origin, the padding subtracted) reads inside an axis of ``size``."""
    first = max(0, -(offset // stride))  # the smallest p with p * stride + offset >= 0
    stop = min(out, (size - 1 - offset) // stride + 1)
    return first, stop


def image_columns(
    shape: tuple[int, ...], dtype: np.dtype[Any], geom: WindowGeometry, groups: int, ones: int
) -> ImageColumns | None:
    """The columns copied from the images for this convolution, or None when the padded
    image's way is the one to take (no padding: the windows are the images' own; many taps;
    small outputs; 1x1 kernels)."""
    if math.prod(geom.kernel) > _TAPS or not any((*geom.pads_begin, *geom.pads_end)):
        return None
    if math.prod(geom.out_shape) < _POSITIONS or (*geom.kernel, *geom.strides) == (1, 1, 1, 1):
        return None  # (a padded 1x1 convolution multiplies the padded image itself)
    return ImageColumns(shape, dtype, geom, groups, ones)
