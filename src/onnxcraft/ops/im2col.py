"""Sliding windows over the spatial axes of N-D images: geometry, strided views, reductions.

Convolution and pooling kernels share this module:

- :func:`resolve_geometry` turns ``auto_pad``, ``pads``, ``ceil_mode``, strides and dilations
  into a :class:`WindowGeometry` (pads actually used and output sizes), with the integer
  formulas the inference rules use too (:mod:`onnxcraft.ops.windows`);
- :func:`window_view` gives every window of a padded image as a zero-copy strided view
  ``(N, C, *out, *kernel)`` — the im2col that Conv feeds to one matrix multiply;
- :func:`separable_reduce` max- or sum-pools without materialising padding, axis by axis;
- :func:`scatter_windows` is the adjoint of the window view (ConvTranspose, Col2Im).

No function here loops over output pixels; loops run over kernel taps and axes only.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from onnxcraft.ops.kernel_common import fail
from onnxcraft.ops.windows import (
    AUTO_PAD_MODES,
    dilated_extent,
    same_output_size,
    same_pads,
    window_count,
)

__all__ = [
    "WindowGeometry",
    "int_list",
    "pad_spatial",
    "resolve_geometry",
    "scatter_windows",
    "separable_reduce",
    "tap_counts",
    "tap_range",
    "tap_views",
    "window_view",
]


@dataclass(frozen=True)
class WindowGeometry:
    """Where the windows of one N-D sliding operation sit on the (padded) input."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    out_shape: tuple[int, ...]
    # Padding beyond pads_end that ceil_mode needs so the last (partial) window exists.
    extra_end: tuple[int, ...]

    @property
    def ndim(self) -> int:
        return len(self.kernel)

    @property
    def spans(self) -> tuple[int, ...]:
        """The extent of a dilated window along each axis."""
        return tuple(dilated_extent(k, d) for k, d in zip(self.kernel, self.dilations, strict=True))


def int_list(value: Sequence[int] | None, length: int, default: int) -> tuple[int, ...]:
    """An attribute given as a possibly empty list, filled with ``default`` when absent."""
    if value is None or len(value) == 0:
        return (default,) * length
    return tuple(int(v) for v in value)


def resolve_geometry(
    op: str,
    spatial: Sequence[int],
    kernel: Sequence[int],
    *,
    strides: Sequence[int] | None,
    dilations: Sequence[int] | None,
    pads: Sequence[int] | None,
    auto_pad: str,
    ceil_mode: bool = False,
) -> WindowGeometry:
    """Resolve padding and output sizes for windows of ``kernel`` sliding over ``spatial``."""
    nd = len(spatial)
    kernel_t = tuple(int(k) for k in kernel)
    strides_t = int_list(strides, nd, 1)
    dilations_t = int_list(dilations, nd, 1)
    pads_t = int_list(pads, 2 * nd, 0)
    for name, values, size in (
        ("kernel_shape", kernel_t, nd),
        ("strides", strides_t, nd),
        ("dilations", dilations_t, nd),
        ("pads", pads_t, 2 * nd),
    ):
        if len(values) != size:
            fail(op, f"{name} must have {size} entries for {nd} spatial axes, got {list(values)}")
    if any(v < 1 for v in kernel_t + strides_t + dilations_t):
        fail(
            op,
            f"kernel_shape, strides and dilations must be positive, got kernel_shape="
            f"{list(kernel_t)}, strides={list(strides_t)}, dilations={list(dilations_t)}",
        )
    if any(p < 0 for p in pads_t):
        fail(op, f"pads must be non-negative, got {list(pads_t)}")
    if auto_pad not in AUTO_PAD_MODES:
        fail(op, f"auto_pad must be one of {AUTO_PAD_MODES}, got {auto_pad!r}")

    spans = [dilated_extent(k, d) for k, d in zip(kernel_t, dilations_t, strict=True)]
    begin: list[int] = []
    end: list[int] = []
    out: list[int] = []
    extra: list[int] = []
    for i in range(nd):
        size, span, stride = int(spatial[i]), spans[i], strides_t[i]
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            n_out = same_output_size(size, stride)
            b, e = same_pads(size, span, stride, auto_pad == "SAME_UPPER")
        else:
            b, e = (0, 0) if auto_pad == "VALID" else (pads_t[i], pads_t[nd + i])
            n_out = window_count(size, b, e, span, stride, ceil_mode)
        needed = (n_out - 1) * stride + span if n_out > 0 else 0
        begin.append(b)
        end.append(e)
        out.append(n_out)
        extra.append(max(0, needed - (size + b + e)))
    return WindowGeometry(
        kernel_t, strides_t, dilations_t, tuple(begin), tuple(end), tuple(out), tuple(extra)
    )


def pad_spatial(x: np.ndarray, geom: WindowGeometry, value: float | int) -> np.ndarray:
    """Pad the spatial axes (2 onwards) of ``x`` as ``geom`` says, ceil-mode extra included."""
    before = geom.pads_begin
    after = tuple(e + x_extra for e, x_extra in zip(geom.pads_end, geom.extra_end, strict=True))
    if not any(before) and not any(after):
        return x
    # Filling then copying in is several times faster than np.pad's general machinery.
    shape = x.shape[:2] + tuple(
        n + b + a for n, b, a in zip(x.shape[2:], before, after, strict=True)
    )
    padded = np.full(shape, value, x.dtype)
    inner = tuple(slice(b, b + n) for b, n in zip(before, x.shape[2:], strict=True))
    destination = (slice(None), slice(None), *inner)
    padded[destination] = x
    return padded


def tap_range(length: int, geom: WindowGeometry, axis: int, tap: int) -> tuple[int, int, int]:
    """For one kernel tap along ``axis``: the output range [lo, hi) whose sample falls on the
    unpadded input, and the input index read by output ``lo``."""
    s, n = geom.strides[axis], geom.out_shape[axis]
    offset = tap * geom.dilations[axis] - geom.pads_begin[axis]
    lo = -(offset // s) if offset < 0 else 0  # the first o with o * s + offset >= 0
    hi = min(n, (length - 1 - offset) // s + 1) if length - 1 - offset >= 0 else 0
    return lo, max(lo, hi), lo * s + offset


def separable_reduce(
    x: np.ndarray, geom: WindowGeometry, combine: np.ufunc, identity: float | int
) -> np.ndarray:
    """Reduce every window of the (unpadded) ``x`` with ``combine``, one axis at a time.

    Max and sum over a box are separable, so reducing axis by axis costs ``sum(kernel)``
    passes instead of ``prod(kernel)``. Padding is never materialised: each tap only touches
    the outputs whose sample lies on the input; the rest keep ``identity``.
    """
    result = x
    # Outer axes first: their strided slices keep whole contiguous rows, and by the time the
    # innermost axis (whose strided reads are slow) is reduced, the array has shrunk.
    for axis in range(geom.ndim):
        dim = 2 + axis
        length = result.shape[dim]
        n_out = geom.out_shape[axis]
        step = geom.strides[axis]
        reads = []
        for tap in range(geom.kernel[axis]):
            lo, hi, first = tap_range(length, geom, axis, tap)
            if hi > lo:
                source = [slice(None)] * result.ndim
                source[dim] = slice(first, first + (hi - lo - 1) * step + 1, step)
                reads.append((lo, hi, result[tuple(source)]))
        # Start from a tap that covers every output (usually there is one), else from identity.
        full = next((i for i, (lo, hi, _) in enumerate(reads) if (lo, hi) == (0, n_out)), None)
        if full is not None:
            reduced = reads.pop(full)[2].copy()
        else:
            shape = list(result.shape)
            shape[dim] = n_out
            reduced = np.full(shape, identity, result.dtype)
        for lo, hi, view in reads:
            target = [slice(None)] * result.ndim
            target[dim] = slice(lo, hi)
            window = reduced[tuple(target)]
            combine(window, view, out=window)
        result = reduced
    return result


def tap_counts(length: int, geom: WindowGeometry, axis: int, *, padded_extent: bool) -> np.ndarray:
    """How many taps of each output window along ``axis`` land on the input (or, with
    ``padded_extent``, on the input or its explicit padding — not ceil-mode overhang)."""
    counts = np.zeros(geom.out_shape[axis], np.int64)
    span = length + (geom.pads_begin[axis] + geom.pads_end[axis] if padded_extent else 0)
    shift = geom.pads_begin[axis] if padded_extent else 0
    for tap in range(geom.kernel[axis]):
        lo, hi, _ = tap_range(span, _shifted(geom, axis, shift), axis, tap)
        counts[lo:hi] += 1
    return counts


def _shifted(geom: WindowGeometry, axis: int, shift: int) -> WindowGeometry:
    """``geom`` with the leading pad of ``axis`` reduced by ``shift``."""
    begin = list(geom.pads_begin)
    begin[axis] -= shift
    return WindowGeometry(
        geom.kernel,
        geom.strides,
        geom.dilations,
        tuple(begin),
        geom.pads_end,
        geom.out_shape,
        geom.extra_end,
    )


def window_view(padded: np.ndarray, geom: WindowGeometry) -> np.ndarray:
    """Every window of ``padded`` as a strided view of shape ``(N, C, *out, *kernel)``."""
    nd = geom.ndim
    spatial_axes = tuple(range(2, 2 + nd))
    if any(n == 0 for n in geom.out_shape):
        return np.zeros(padded.shape[:2] + geom.out_shape + geom.kernel, padded.dtype)
    view = sliding_window_view(padded, geom.spans, axis=spatial_axes)
    index = (
        slice(None),
        slice(None),
        *tuple(
            slice(0, (n - 1) * s + 1, s) for n, s in zip(geom.out_shape, geom.strides, strict=True)
        ),
        *tuple(slice(None, None, d) for d in geom.dilations),
    )
    return view[index]


def tap_views(padded: np.ndarray, geom: WindowGeometry) -> Iterator[np.ndarray]:
    """For each kernel tap in row-major order, the strided view ``(N, C, *out)`` it reads.

    Used where the tap a value came from matters (MaxPool's Indices output).
    """
    for tap in np.ndindex(*geom.kernel):
        reads = tuple(
            slice(t * d, t * d + (n - 1) * s + 1, s) if n > 0 else slice(0, 0)
            for t, d, n, s in zip(tap, geom.dilations, geom.out_shape, geom.strides, strict=True)
        )
        index = (slice(None), slice(None), *reads)
        yield padded[index]


def scatter_windows(
    cols: np.ndarray,
    out_spatial: Sequence[int],
    *,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads_begin: Sequence[int],
) -> np.ndarray:
    """The adjoint of :func:`window_view`: add every window back onto an image.

    ``cols`` has shape ``(N, C, *kernel, *positions)``; window ``p`` starts at ``p * stride -
    pads_begin`` of the output, whose spatial size is ``out_spatial``. Values falling outside the
    output (in the padding) are dropped. Loops over kernel taps only.
    """
    nd = len(out_spatial)
    kernel = cols.shape[2 : 2 + nd]
    positions = cols.shape[2 + nd :]
    # Buffer index = lead + p * stride + tap * dilation; output index o sits at lead + o + pad.
    # ``lead`` makes room for negative pads (an output larger than the windows cover).
    lead = [max(0, -p) for p in pads_begin]
    full = [
        (n - 1) * s + (k - 1) * d + 1 if n > 0 else 0
        for n, s, k, d in zip(positions, strides, kernel, dilations, strict=True)
    ]
    extent = [
        ld + max(f, p + o) for ld, f, p, o in zip(lead, full, pads_begin, out_spatial, strict=True)
    ]
    buffer = np.zeros(cols.shape[:2] + tuple(extent), cols.dtype)
    for tap in np.ndindex(*kernel):
        target = tuple(
            slice(ld + t * d, ld + t * d + (n - 1) * s + 1, s) if n > 0 else slice(0, 0)
            for ld, t, d, n, s in zip(lead, tap, dilations, positions, strides, strict=True)
        )
        destination = (slice(None), slice(None), *target)
        source = (slice(None), slice(None), *tap)
        buffer[destination] += cols[source]
    crop = tuple(
        slice(ld + p, ld + p + o) for ld, p, o in zip(lead, pads_begin, out_spatial, strict=True)
    )
    index = (slice(None), slice(None), *crop)
    return buffer[index]
