"""A prepared Conv (and its Relu) whose output only a 3x3, stride-2 MaxPool reads runs as one
step with it (``fuse=True``): SqueezeNet's stem, ``Conv -> Relu -> MaxPool``.

Pooling at stride 2 reads every other sample of each row and every other row. numpy runs
such strided operations several times slower an element than contiguous ones, so the pool
after SqueezeNet's stem took as long as the convolution itself. Here the convolution writes
its output already split into its four stride phases: output position (2a + p, 2b + q) is
column (p, q, a, b) of the product, the im2col's columns being copied in that order (one copy
through a strided view of the padded image, the taps and phases as its axes). Each phase is
a ceil(H/2) x ceil(W/2) grid (a last odd row or column computed past the image, never read),
and every tap of the pool is then a whole, contiguous slice of a phase:

    rows:    R[q][a, b] = max(max(P[0, q][a, b], P[1, q][a, b]), P[0, q][a + 1, b])
    columns: Y[a, b]    = max(max(R[0][a, b], R[1][a, b]), R[0][a, b + 1])

taken over each phase flattened (the shifted reads at a row's end land on columns that are
dropped), in the order the MaxPool kernel combines them (rows first, the taps in order), so
the pool's results are the same bits as the kernel's on the same convolution.

The Relu is applied to the pooled values, a quarter as many, in the copy that drops the
phases' extra column: ``max(relu(a), relu(b))`` and ``relu(max(a, b))`` are the same bits for
every pair of floats numpy's ``maximum`` can see, NaN payloads and signed zeros included
(``maximum(-0.0, 0.0)`` is ``0.0``; ``tests/evaluate/test_conv_pool.py`` checks it).

Each product column is the dot product the prepared im2col makes, the bias in it, so the
values are those of the prepared convolution followed by the pool, within the dot product's
rounding (BLAS may round a column differently by its place among the others: on SqueezeNet's
stem the values are the same bits; ``pool_phases`` alone is tested bit for bit against the
MaxPool and Relu kernels). The images of a batch go one at a time, each
finished while its products are in cache: at batch 8 the stem's output is 25 MB, which the
pool read back from memory.

The same holds for a pool padded by one on every side (ShuffleNet's stem) on a Conv output
of even sizes: window a then reads rows 2a - 1, 2a and 2a + 1, the odd phase's row a - 1, the
even phase's row a and the odd phase's row a (:func:`pool_padded_phases`).

Taken when the pool has a 3x3 window, strides 2, no padding or one on every side, no
dilation, and one output (no Indices). At run time, inputs the prepared im2col layout does
not copy into columns (other layouts, 1x1 convolutions multiplying the image itself,
outputs of a few dozen positions that the batch's images share a product for, a residual
Add, groups), pool windows that ceil mode would add past the end, outputs smaller than a
window, and odd sizes under a padded pool run the two steps as before.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from onnxcraft.evaluate.step_links import sole_readers, with_replacements
from onnxcraft.ops.clamp import at_least_zero
from onnxcraft.ops.conv.ones_channel import OnesChannel
from onnxcraft.ops.conv.prepared import _SIDE_BY_SIDE_POSITIONS, PreparedConv
from onnxcraft.ops.conv.scratch import WorkingArrays
from onnxcraft.ops.im2col import WindowGeometry
from onnxcraft.ops.kernel_api import Step

__all__ = ["ConvThenPool", "pool_into_conv", "pool_padded_phases", "pool_phases"]


def pool_into_conv(
    steps: list[Step],
    kept: set[str],
    readers: Counter[str],
    is_library_step: Callable[[Step, str], bool],
) -> list[Step]:
    """``steps`` with each Conv -> MaxPool above fused into one step, where the Conv was."""
    sole = sole_readers(steps, readers, kept)
    producer = {name: index for index, step in enumerate(steps) for name in step.outputs if name}
    replaced: dict[int, Step] = {}
    dropped: set[int] = set()
    for pool_at, pool in enumerate(steps):
        if not is_library_step(pool, "MaxPool") or len(pool.inputs) != 1 or pool.fn is None:
            continue
        if len(pool.outputs) != 1:
            continue
        pad = _halving_window(pool.attributes)
        if pad is None:
            continue
        source = producer.get(pool.inputs[0])
        if source is None or sole.get(pool.inputs[0]) != pool_at:
            continue
        conv = steps[source]
        if not _plain_conv(conv) or source in replaced or source in dropped:
            continue
        assert isinstance(conv.fn, PreparedConv)  # _plain_conv
        fused = ConvThenPool(conv.fn, pool.fn, with_context=pool.context is not None, pad=pad)
        # the Conv's node (errors name the first node of a fused step), the pool's outputs,
        # attributes and context (its kernel's arguments)
        replaced[source] = replace(
            conv, fn=fused, outputs=pool.outputs, attributes=pool.attributes, context=pool.context
        )
        dropped.add(pool_at)
    return with_replacements(steps, replaced, dropped)


def _plain_conv(step: Step) -> bool:
    """A prepared Conv (with or without its Relu) of one input: no residual Add."""
    return isinstance(step.fn, PreparedConv) and len(step.inputs) == 1 and len(step.outputs) == 1


def _halving_window(attributes: dict[str, Any]) -> int | None:
    """The padding (0, or 1 on every side) of a 3x3 window at stride 2 without dilation
    (None: another window; ceil mode is checked per input)."""
    if tuple(attributes.get("kernel_shape") or ()) != (3, 3):
        return None
    if tuple(attributes.get("strides") or ()) != (2, 2):
        return None
    if tuple(attributes.get("dilations") or (1, 1)) != (1, 1):
        return None
    pads = tuple(attributes.get("pads") or (0, 0, 0, 0))
    auto_pad = attributes.get("auto_pad", "NOTSET")
    if not any(pads) and auto_pad in ("NOTSET", "VALID"):
        return 0
    if pads == (1, 1, 1, 1) and auto_pad == "NOTSET":
        return 1
    return None


# The pool's passes run over this many product values at a time (a few channels, 1 MiB of
# float32), so that its intermediates stay in the L2 cache: on the stem's 64 x 4 x 56 x 56
# products, the pool took 0.50 ms by 16 channels against 0.65 ms for all 64 at once.
_POOL_VALUES = 1 << 18
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


class ConvThenPool:
    """The fused step's kernel: ``pool(conv(x))``, through the phases when it can."""

    def __init__(
        self, conv: PreparedConv, pool: Callable[..., Any], *, with_context: bool, pad: int = 0
    ) -> None:
        self.conv = conv
        self.pool = pool  # the MaxPool kernel, for inputs the phases do not cover
        self.with_context = with_context  # whether the pool kernel takes the node's context
        self.pad = pad  # the pool's padding on every side: 0 or 1
        self.spare: OnesChannel | None = None  # see onnxcraft.evaluate.ones_channels

    def __call__(self, *args: Any, **attributes: Any) -> Any:
        context, x = (args[0], args[1]) if self.with_context else (None, args[0])
        pooled = self._by_phases(x, int(attributes.get("ceil_mode", 0)))
        if pooled is not None:
            return (pooled, None) if self.with_context else pooled
        if self.conv.relu is None:  # the two steps as before the rewrite
            y = self.conv(x)
            if self.with_context:
                return self.pool(context, y, **attributes)
            return self.pool(y, **attributes)
        # The two steps with the Relu moved after the pool, onto a quarter of the values
        # (a max and a Relu commute bit for bit, see _write): the 7x7 stems' phases layout.
        y = self._unclamped(x)
        if self.with_context:
            values, *rest = self.pool(context, y, **attributes)
            return (self._clamped(values), *rest)
        return self._clamped(self.pool(y, **attributes))

    @functools.cached_property
    def _unclamped(self) -> PreparedConv:
        """The Conv without its Relu (made on first use)."""
        return self.conv.without_relu()

    def _clamped(self, values: Any) -> Any:
        """The Conv's Relu on the pooled values: in place on a float array, else its kernel."""
        relu = self.conv.relu
        assert relu is not None
        if isinstance(values, np.ndarray) and values.dtype in _FLOATS and values.flags.writeable:
            return at_least_zero(values, out=values)
        return relu(values)

    def _by_phases(self, x: Any, ceil_mode: int) -> np.ndarray | None:
        conv = self.conv
        layout = conv._layout_for(x)  # the prepared Conv's own choice
        if layout is None or layout.name != "im2col" or conv.group != 1 or conv.add is not None:
            return None
        geom = layout.geom
        hc, wc = geom.out_shape
        if self.pad:
            # Padded by one: even sizes only, whose last window ends on the last row and
            # column (ceil mode would add one starting there, an odd size reach the padding).
            if min(hc, wc) < 2 or hc % 2 or wc % 2 or ceil_mode or x.shape[0] == 0:
                return None
        elif min(hc, wc) < 3 or x.shape[0] == 0 or (ceil_mode and (hc % 2 == 0 or wc % 2 == 0)):
            return None  # ceil mode on an even size adds a window past the end
        if hc * wc <= _SIDE_BY_SIDE_POSITIONS or (*geom.kernel, *geom.strides) == (1, 1, 1, 1):
            return None  # the prepared Conv shares products, or adds a 1x1's bias after
        with np.errstate(all="ignore"):  # as the prepared Conv: overflow gives inf quietly
            return self._run(x, geom)

    def _run(self, x: np.ndarray, geom: WindowGeometry) -> np.ndarray:
        conv, work = self.conv, self.conv.work  # the plan's working arrays
        n, m = x.shape[0], conv.weight.shape[0]
        hc, wc = geom.out_shape
        hq, wq = -(-hc // 2), -(-wc // 2)  # each phase's grid
        columns = _PhaseColumns(conv, geom, x, (hq, wq))
        weights = conv._arrangement("im2col")[0]  # made once, the bias as a last column
        products = work.take("phase products", (m, 2, 2, hq * wq), x.dtype)
        shape = (n, m, hq, wq) if self.pad else (n, m, (hc - 3) // 2 + 1, (wc - 3) // 2 + 1)
        y = None if self.spare is None else self.spare.array(shape, x.dtype)
        if y is None:
            y = np.empty(shape, x.dtype)
        pool = pool_padded_phases if self.pad else pool_phases
        for image in range(n):
            np.matmul(weights, columns.of(x[image]), out=products.reshape(m, -1))
            pool(products, wq, y[image], relu=conv.relu is not None, work=work)
        return y


def pool_phases(
    products: np.ndarray, wq: int, out: np.ndarray, *, relu: bool, work: WorkingArrays
) -> None:
    """``out`` (M, Ho, Wo) = MaxPool 3x3, stride 2 (then Relu if ``relu``) of an image given by
    its stride phases: ``products`` (M, 2, 2, hq * wq), phase (p, q) holding position
    (2a + p, 2b + q) at a * wq + b. Positions past the image (a last odd row or column) are
    never read. Channels go a block at a time, so that the passes stay in cache."""
    ho, wo = out.shape[1:]
    length = ho * wq  # the pooled rows, over the phase's width
    for first, part, rows, pooled in _channel_blocks(products, ho, wq, out.dtype, work):
        pool = pooled.reshape(len(part), length)[:, :-1]
        even, odd = part[:, 0], part[:, 1]  # (M, q, a * wq + b) by row phase
        np.maximum(even[..., :length], odd[..., :length], out=rows)
        np.maximum(rows, even[..., wq : wq + length], out=rows)
        # the last pooled position of the flat grid is a dropped column: length - 1
        np.maximum(rows[:, 0, : length - 1], rows[:, 1, : length - 1], out=pool)
        np.maximum(pool, rows[:, 0, 1:length], out=pool)
        _write(pooled[:, :, :wo], out[first : first + len(part)], relu)


def pool_padded_phases(
    products: np.ndarray, wq: int, out: np.ndarray, *, relu: bool, work: WorkingArrays
) -> None:
    """``out`` (M, Ho, Wo) = MaxPool 3x3, stride 2, padded by one on every side (then Relu if
    ``relu``) of an image of even sizes 2 Ho x 2 Wo given by its stride phases, as for
    :func:`pool_phases` (``wq`` = Wo). Window a reads rows 2a - 1, 2a and 2a + 1: the odd
    phase's row a - 1 (none for a = 0: the padding), the even phase's row a and the odd
    phase's row a; columns alike. The kernel takes the tap on every output first (the
    middle one), then the others in order: max(max(even[a], odd[a - 1]), odd[a]), and
    max(even[0], odd[0]) at the edge."""
    ho = out.shape[1]  # (out.shape[2] == wq)
    length = ho * wq
    for first, part, rows, pooled in _channel_blocks(products, ho, wq, out.dtype, work):
        pool = pooled.reshape(len(part), length)
        even, odd = part[:, 0], part[:, 1]  # (M, q, a * wq + b) by row phase
        np.maximum(even[..., wq:], odd[..., : length - wq], out=rows[..., wq:])
        rows[..., :wq] = even[..., :wq]  # (the first row: the padding above it)
        np.maximum(rows, odd, out=rows)
        # columns: a flat shift by one, its first column of each row then done again alone
        # (there it read the previous row's last column)
        np.maximum(rows[:, 0, 1:], rows[:, 1, :-1], out=pool[:, 1:])
        pooled[:, :, 0] = rows[:, 0].reshape(len(part), ho, wq)[:, :, 0]
        np.maximum(pool, rows[:, 1], out=pool)
        _write(pooled, out[first : first + len(part)], relu)


def _channel_blocks(
    products: np.ndarray, ho: int, wq: int, dtype: np.dtype[Any], work: WorkingArrays
) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """Per block of channels (1 MiB of products, in cache): the first channel, its products
    (count, 2, 2, hq * wq), and working arrays for its rows pooled (count, 2, ho * wq) and
    its pooled grid (count, ho, wq)."""
    m = products.shape[0]
    block = max(1, _POOL_VALUES // max(1, products[0].size))  # channels pooled at a time
    by_rows = work.take("phase rows", (block, 2, ho * wq), dtype)
    pooled = work.take("phase pooled", (block, ho, wq), dtype)
    for first in range(0, m, block):
        count = min(block, m - first)
        yield first, products[first : first + count], by_rows[:count], pooled[:count]


def _write(pooled: np.ndarray, target: np.ndarray, relu: bool) -> None:
    """The pooled values into ``target``, through the Relu when it follows."""
    if relu:
        at_least_zero(pooled, out=target)
    else:
        target[...] = pooled


class _PhaseColumns:
    """A convolution's im2col of one image, its columns in phase order (p, q, a, b) for
    output position (2a + p, 2b + q), with a row of ones for the bias; in working arrays."""

    def __init__(
        self,
        conv: PreparedConv,
        geom: WindowGeometry,
        x: np.ndarray,
        grid: tuple[int, int],
    ) -> None:
        c = x.shape[1]
        (kh, kw), (sh, sw), (dh, dw) = geom.kernel, geom.strides, geom.dilations
        hq, wq = grid
        self.top, self.left = geom.pads_begin
        # The padded image, with room for the phantom last row and column of odd sizes.
        rows = max((2 * hq - 1) * sh + (kh - 1) * dh + 1, self.top + x.shape[2])
        columns = max((2 * wq - 1) * sw + (kw - 1) * dw + 1, self.left + x.shape[3])
        work = conv.work
        self.padded = work.take("phase padded", (c, rows, columns), x.dtype)
        # zeros around the image only: each image is copied over the inside
        bottom, right = self.top + x.shape[2], self.left + x.shape[3]
        self.padded[:, : self.top] = 0
        self.padded[:, bottom:] = 0
        self.padded[:, self.top : bottom, : self.left] = 0
        self.padded[:, self.top : bottom, right:] = 0
        taps = c * kh * kw
        ones = 0 if conv.bias is None else 1
        self.cols = work.take("phase cols", (taps + ones, 4 * hq * wq), x.dtype)
        if ones:
            self.cols[taps] = 1
        self.windows = self.cols[:taps].reshape(c, kh, kw, 2, 2, hq, wq)
        pc, pr, pe = self.padded.strides
        # (C, kh, kw, p, q, a, b) -> padded[c, (2a + p) sh + i dh, (2b + q) sw + j dw]
        self.source = as_strided(
            self.padded,
            self.windows.shape,
            (pc, dh * pr, dw * pe, sh * pr, sw * pe, 2 * sh * pr, 2 * sw * pe),
            writeable=False,
        )

    def of(self, image: np.ndarray) -> np.ndarray:
        """The columns of ``image`` (C, H, W)."""
        h, w = image.shape[1:]
        self.padded[:, self.top : self.top + h, self.left : self.left + w] = image
        np.copyto(self.windows, self.source)
        return self.cols
