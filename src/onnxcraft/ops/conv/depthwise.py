"""Depthwise 2-D convolutions (one filter per channel) as one batched matrix product, for the
prepared convolutions (``fuse=True``, ``ops/conv/prepared.py``).

A depthwise convolution has few terms per output (9 for 3x3) and no weights shared between
channels, so neither an im2col product (one tiny product per channel, nine copies) nor
elementwise multiply-adds over shifted views (18 passes; numpy's elementwise loops run some
25 times fewer operations per second than OpenBLAS's products here) come near onnxruntime.

Instead, the output columns are cut into blocks of ``bw`` (:func:`block_width`), and each
block of an output row reads one small rectangle of the padded image: ``span`` =
(kh - 1) * dh + 1 rows of ``bw_in`` = (bw - 1) * sw + (kw - 1) * dw + 1 columns. With those
rectangles copied, flattened, as the rows of a matrix A_c (Ho * blocks x span * bw_in, one
copy for all channels), the output of channel c is A_c @ T_c, where T_c (span * bw_in x bw)
holds, in column q, the channel's weight w[c, i, j] at row i * dh * bw_in + q * sw + j * dw
and zeros elsewhere: a banded matrix, the same for every block, made once. All channels
are one ``np.matmul`` over a batch of C products, whose (Ho * blocks, bw) results are the
output rows themselves; a column of ones in A and the bias as a last row of T add the bias.

The product multiplies about bw_in / kw times more terms than the convolution has (the
zeros of T), but OpenBLAS runs them faster than numpy runs the nine taps. Each output's
sum holds the same nonzero terms as the written kernel's plus exact zeros, so it rounds as
a dot product of its terms does. The zeros multiply the other values of the rectangle: an
infinity or NaN in the input would make NaN across the outputs of its blocks in that
channel, where the written kernel limits it to the windows that hold it, so the prepared
convolution runs the im2col for an input holding one (``_Layout.confined`` in
``ops/conv/prepared.py``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from onnxcraft.ops.conv.scratch import WorkingArrays
from onnxcraft.ops.im2col import WindowGeometry

__all__ = ["Blocks", "DepthwiseRun", "block_width", "depthwise_weights"]

# Output columns per block, at most (measured with bench_conv.py on ShuffleNet's and
# MobileNet's depthwise shapes: 14 columns a block ran fastest at every width from 14 to
# 112, 1.3 to 2 times faster than 28 or the whole row on wide images, and than 4 to 8).
_BLOCK = 16


@dataclass(frozen=True)
class Blocks:
    """How the output columns are cut: ``count`` blocks of ``width``, reading ``width_in``
    padded columns each, from a padded image ``padded_width`` wide (wider than the input's
    padding when the blocks overrun the output)."""

    width: int
    count: int
    width_in: int
    padded_width: int


def block_width(geom: WindowGeometry, width: int) -> Blocks:
    """The blocks for images ``width`` columns wide: the largest divisor of Wo up to
    ``_BLOCK`` (no output column computed in vain), or, when that is small, blocks of
    about ``_BLOCK`` with the last one overrunning the output."""
    wo, sw = geom.out_shape[1], geom.strides[1]
    span_w = (geom.kernel[1] - 1) * geom.dilations[1] + 1
    bw = max(d for d in range(1, min(wo, _BLOCK) + 1) if wo % d == 0)
    if 2 * bw < min(wo, _BLOCK):  # a prime width: even blocks, the last one cut
        count = -(-wo // _BLOCK)
        bw = -(-wo // count)
    count = -(-wo // bw)
    padded = geom.pads_begin[1] + width + geom.pads_end[1]
    needed = (count * bw - 1) * sw + span_w
    return Blocks(bw, count, (bw - 1) * sw + span_w, max(padded, needed))


def depthwise_weights(
    weight: np.ndarray, bias: np.ndarray | None, geom: WindowGeometry, blocks: Blocks
) -> np.ndarray:
    """The banded matrices T (C, span * bw_in [+ 1 with a bias], bw) of ``weight``
    (C, 1, kh, kw), in ``weight``'s type."""
    c, _, kh, kw = weight.shape
    sw, (dh, dw) = geom.strides[1], geom.dilations
    rows = ((kh - 1) * dh + 1) * blocks.width_in
    t = np.zeros((c, rows + (bias is not None), blocks.width), weight.dtype)
    q = np.arange(blocks.width)
    for i in range(kh):
        for j in range(kw):
            t[:, i * dh * blocks.width_in + q * sw + j * dw, q] = weight[:, 0, i, j, None]
    if bias is not None:
        t[:, rows, :] = bias[:, None]
    return t


class DepthwiseRun:
    """The banded products for inputs of one shape (N, C, H, W), worked out once: sizes,
    strides and the views of the working arrays, so that a call is a handful of numpy
    operations (about 40 of a depthwise call's 120-200 µs were Python before: the geometry
    unpacked, three working arrays taken and reshaped, ``as_strided``'s array interface).

    A run takes working arrays of its own kind, shared only by the runs of the same shape,
    geometry and type (``kept``: ShuffleNet's units of a stage share them), whose constant
    parts are made once: the padded image's zero frame and the column of ones (no pass for
    either). Strided convolutions (``from_image``) have no padded image at all: a
    rectangle's entry lies either inside the image or in its padding, which follows from the
    shape alone, so their rows are made with zeros where the padding falls and a call copies
    only the image's entries (for each row of the rectangles and each class of blocks alike
    at the edges, the interior blocks one class, one copy from an overlapping view of the
    input; with a stride of 2 the image is four times the output, and its padded copy cost as
    much as the rectangles'). The entries are the padded image's, so the products are the
    same bits as through the plan's shared working arrays (``work.blocks["padded"]``,
    ``["cols"]``, zeroed, copied into and set each call), the way the runs took before and
    the tests' reference (``_KEEP``).

    The views are made again whenever a block was replaced (grown by another convolution)
    or belongs to another thread (the blocks are thread-local). With ``stacked``, each
    channel's rectangles of every image are the rows of one matrix, so that the product is
    one per channel instead of one per channel and image (for small outputs, where
    OpenBLAS's cost per call dominates), and the products are copied back image by image."""

    def __init__(
        self,
        shape: tuple[int, ...],
        dtype: np.dtype[np.generic],
        geom: WindowGeometry,
        blocks: Blocks,
        t: np.ndarray,
        *,
        stacked: bool,
    ) -> None:
        n, c, h, w = shape
        self.geom, self.dtype, self.t, self.stacked = geom, dtype, t, stacked
        ho, self.wo = geom.out_shape
        (sh, sw), top, left = geom.strides, geom.pads_begin[0], geom.pads_begin[1]
        hp, wp = top + h + geom.pads_end[0], blocks.padded_width
        span = (geom.kernel[0] - 1) * geom.dilations[0] + 1
        self.padded_shape = (n, c, hp, wp)
        self.inside = (slice(None), slice(None), slice(top, top + h), slice(left, left + w))
        self.terms = span * blocks.width_in
        # the rows of the products, (N, C, ...) or, stacked, (C, N, ...)
        first, second = (c, n) if stacked else (n, c)
        self.rows_shape = (first, second, ho, blocks.count, t.shape[1])
        item = dtype.itemsize
        outer = (hp * wp, c * hp * wp) if stacked else (c * hp * wp, hp * wp)
        # each block's rectangle: overlapping windows of the padded channels (read only)
        self.rectangles = (first, second, ho, blocks.count, span, blocks.width_in)
        steps = (*outer, sh * wp, blocks.width * sw, wp, 1)
        self.rectangle_strides = tuple(item * step for step in steps)
        if stacked:
            self.matrices: tuple[int, ...] = (c, n * ho * blocks.count, t.shape[1])
            self.products = (c, n, ho * blocks.count, blocks.width)
            self.product_rows: tuple[int, ...] = (c, n * ho * blocks.count, blocks.width)
        else:
            self.matrices = (n, c, ho * blocks.count, t.shape[1])
            self.products = (n, c, ho * blocks.count, blocks.width)
            self.product_rows = self.products
        # the products are the output rows themselves unless blocks overrun the output
        self.direct = not stacked and blocks.count * blocks.width == self.wo
        self.ho = ho
        self._views: tuple[Any, ...] | None = None
        self.kept = _KEEP
        # the working arrays' names when they are of this run's kind: everything their
        # constant parts follow from
        kind = f"depthwise {shape} {dtype.str} {geom} {blocks} {t.shape} {stacked}"
        self.names = (f"{kind} rows", f"{kind} padded")
        self.from_image = self.kept and sh > 1
        # from the image: each rectangle row's and class of blocks' share of the image, as
        # (the index into the rectangles, the input's view: shape, offset and strides in bytes)
        self.pieces: list[tuple[tuple[Any, ...], tuple[int, ...], int, tuple[int, ...]]] = []
        if self.from_image:
            image = (h * w, c * h * w) if stacked else (c * h * w, h * w)
            bytes_per = tuple(item * s for s in (*image, sh * w, blocks.width * sw, 1))
            for u in range(span):
                r0 = max(0, -((u - top) // sh))  # the first output row whose row u is inside
                r1 = min(ho, (h - 1 + top - u) // sh + 1)
                for b0, b1, k0, k1 in _block_classes(blocks, sw, left, w) if r1 > r0 else ():
                    where = (slice(None), slice(None), slice(r0, r1), slice(b0, b1), u)
                    start = (r0 * sh + u - top) * w + b0 * blocks.width * sw + k0 - left
                    self.pieces.append(
                        (
                            (*where, slice(k0, k1)),
                            (first, second, r1 - r0, b1 - b0, k1 - k0),
                            start * item,
                            bytes_per,
                        )
                    )
        self._local = threading.local()  # kept arrays: this thread's views of them

    def _made_views(self, work: WorkingArrays) -> tuple[Any, ...]:
        padded = work.take("padded", self.padded_shape, self.dtype)
        rows = work.take("cols", self.rows_shape, self.dtype)
        rectangles = np.ndarray(
            self.rectangles, self.dtype, padded, 0, self.rectangle_strides
        )  # never written: the same windows overlap
        rectangles.flags.writeable = False
        ones = rows[..., self.terms] if self.t.shape[1] > self.terms else None
        products = None if self.direct else work.take("products", self.products, self.dtype)
        blocks = work.blocks
        return (
            blocks["padded"],
            blocks["cols"],
            None if products is None else blocks["products"],
            padded,
            padded[self.inside],
            rows[..., : self.terms].reshape(self.rectangles),
            rectangles,
            ones,
            rows.reshape(self.matrices),
            products,
        )

    def _kept_views(self, work: WorkingArrays) -> tuple[Any, ...] | None:
        """This thread's views of the arrays of this run's kind, their constant parts made
        when the arrays are (zeros in the padding, ones in the bias column); None when the
        thread holds too much in arrays of their kind already."""
        names = self.names
        taken = work.take_kind(names[0], self.rows_shape, self.dtype)
        if taken is None:
            return None
        rows, made = taken
        if made:
            rows[...] = 0
            if self.t.shape[1] > self.terms:
                rows[..., self.terms] = 1  # multiplies the bias, T's last row
        target = rows[..., : self.terms].reshape(self.rectangles)
        if self.from_image:
            pieces = [(target[where], *view) for where, *view in self.pieces]
            return work.blocks[names[0]], rows.reshape(self.matrices), pieces, None, None
        taken = work.take_kind(names[1], self.padded_shape, self.dtype)
        if taken is None:
            return None
        padded, made = taken
        if made:
            padded[...] = 0  # the frame, never written again
        rectangles = np.ndarray(self.rectangles, self.dtype, padded, 0, self.rectangle_strides)
        rectangles.flags.writeable = False
        copies = [(padded[self.inside], None), (target, rectangles)]
        return work.blocks[names[0]], rows.reshape(self.matrices), [], copies, padded

    def __call__(self, x: np.ndarray, out: np.ndarray, work: WorkingArrays) -> None:
        """Images ``x`` (of this run's shape) convolved into ``out`` (N, C, Ho, Wo)."""
        matrices = self._kept(x, work) if self.kept else None
        if matrices is None:
            matrices = self._shared(x, work)
        if self.direct:
            np.matmul(matrices, self.t, out=out.reshape(self.products))
            return
        products = work.take("products", self.products, self.dtype)
        np.matmul(matrices, self.t, out=products.reshape(self.product_rows))
        if self.stacked:
            out[...] = products.reshape(out.shape[1], out.shape[0], self.ho, -1)[
                ..., : self.wo
            ].transpose(1, 0, 2, 3)
            return
        out[...] = products.reshape(*out.shape[:3], -1)[..., : self.wo]

    def _shared(self, x: np.ndarray, work: WorkingArrays) -> np.ndarray:
        """The rectangles in the shared working arrays: the matrices of the product."""
        views, blocks = self._views, work.blocks
        if (
            views is None
            or views[0] is not blocks.get("padded")
            or views[1] is not blocks.get("cols")
        ):
            views = self._views = self._made_views(work)
        _, _, _, padded, inside, target, rectangles, ones, matrices, _ = views
        padded[...] = 0  # the frame: the block is shared with the plan's other convolutions
        inside[...] = x
        target[...] = rectangles
        if ones is not None:
            ones[...] = 1  # multiplies the bias, T's last row
        return matrices  # type: ignore[no-any-return]

    def _kept(self, x: np.ndarray, work: WorkingArrays) -> np.ndarray | None:
        """The rectangles in the arrays of this run's kind: the matrices of the product (None
        when this thread has no room left for them)."""
        views = getattr(self._local, "views", None)
        if views is None or views[0] is not work.blocks.get(self.names[0]):
            views = self._local.views = self._kept_views(work)
            if views is None:
                return None
        _, matrices, pieces, copies, _ = views
        if pieces:
            if not x.flags.c_contiguous:
                x = np.ascontiguousarray(x)  # the pieces' views step through a C-ordered image
            dtype = self.dtype
            for target, view, offset, strides in pieces:
                target[...] = np.ndarray(view, dtype, x, offset, strides)
        elif copies is not None:
            (inside, _), (target, rectangles) = copies
            inside[...] = x
            target[...] = rectangles
        return matrices  # type: ignore[no-any-return]


# Whether runs take working arrays of their own kind; False: the plan's shared ones, zeroed
# and set each call (the tests' reference). Inside ShuffleNet, at batch 8, the runs of their
# kind took 0.82-0.96x the time, but 1.08x on the 7 x 7 outputs; at batch 1 0.98-1.09x
# (no pass to zero the frame, but arrays out of cache: the shared ones were used just before).
_KEEP = True


def _block_classes(
    blocks: Blocks, stride: int, left: int, width: int
) -> list[tuple[int, int, int, int]]:
    """The blocks ``b0:b1`` whose rectangles hold the image's columns at the same places
    ``k0:k1`` (the interior blocks all of theirs, the edge blocks fewer), in order."""
    classes: list[tuple[int, int, int, int]] = []
    for b in range(blocks.count):
        start = b * blocks.width * stride - left  # the image column of the rectangle's first
        k0, k1 = max(0, -start), min(blocks.width_in, width - start)
        if k1 <= k0:
            continue
        if classes and classes[-1][1] == b and classes[-1][2:] == (k0, k1):
            classes[-1] = (classes[-1][0], b + 1, k0, k1)
        else:
            classes.append((b, b + 1, k0, k1))
    return classes
