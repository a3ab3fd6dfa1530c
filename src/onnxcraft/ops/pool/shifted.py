"""Window reductions (max, sum) as whole-array operations on flat, shifted views.

:func:`onnxcraft.ops.im2col.separable_reduce` reduces one spatial axis at a time through
strided views. Along the innermost axes those views have short rows (7 to 56 elements in
image models), and numpy pays its per-row overhead on each: a 3x3 MaxPool over 256x28x28
took 0.32 ms, five times the arithmetic. Here each tap of an axis is one operation on the
whole array seen as one flat run, shifted by ``offset * inner`` elements (``inner`` being
the size of the axes after it): every output position then reads the sample ``offset`` rows
away, as the window asks, except near the axis's edges, where the shift wraps into the
neighbouring row. Those few edge positions are recomputed exactly afterwards, from the taps
that land on the input. Along an axis with a stride above 1, long rows are reduced through
strided views; short rows, and the innermost axis, are reduced at every position (contiguous
reads) and every stride-th kept (every other one by a cast of pairs, see ``_every_other``).

Every output combines the same samples in the same order as ``separable_reduce`` (the tap
covering every output first, then the others in tap order; ``identity`` first where no tap
covers every output), so sums round the same and the results are equal bit for bit. Axes
where that cannot hold (an output window starting past the input's end, in ceil mode) are
reduced as ``separable_reduce`` does.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from onnxcraft.ops.im2col import WindowGeometry, tap_range

__all__ = ["window_reduce"]


def window_reduce(
    x: np.ndarray, geom: WindowGeometry, combine: np.ufunc, identity: float | int
) -> np.ndarray:
    """Reduce every window of the unpadded ``x`` (N, C, spatial...) with ``combine``."""
    planes = x.shape[0] * x.shape[1]
    per_plane = math.prod(x.shape[2:])
    if planes > 1 and x.size > _CHUNKED_ABOVE:
        # Planes (one sample's channel) are independent: a few at a time, so that every
        # pass over them stays in the core's cache (a batch of 8 is 3 to 25 MB).
        stack = x.reshape(1, planes, *x.shape[2:])
        step = max(1, _CHUNK // max(per_plane, 1))
        out = np.empty((planes, *geom.out_shape), x.dtype)
        for start in range(0, planes, step):
            out[start : start + step] = _reduce(
                stack[:, start : start + step], geom, combine, identity
            )[0]
        return out.reshape(*x.shape[:2], *geom.out_shape)
    result = _reduce(x, geom, combine, identity)
    # Windows of one sample leave x as it is: the result is still a new array.
    return result.copy() if np.may_share_memory(result, x) else result


# Inputs over 8 MiB of float32 (a batch of 8 of an early feature map) are reduced 1 MiB at a
# time, within the L2 cache with the temporaries. Below that, whole-array passes were as fast
# or faster (measured on 3x3 MaxPools: 8x480x28x28 3.3 -> 2.2 ms, 8x256x56x56 4.9 -> 3.7 ms,
# while 8x832x14x14 went 0.85 -> 1.06 ms when chunked).
_CHUNKED_ABOVE = 1 << 21
_CHUNK = 1 << 18


def _reduce(
    x: np.ndarray, geom: WindowGeometry, combine: np.ufunc, identity: float | int
) -> np.ndarray:
    result = np.ascontiguousarray(x)
    for axis in range(geom.ndim):  # outer axes first, as separable_reduce
        result = _reduce_axis(result, geom, axis, combine, identity)
    return result


def _reduce_axis(
    r: np.ndarray, geom: WindowGeometry, axis: int, combine: np.ufunc, identity: float | int
) -> np.ndarray:
    dim = 2 + axis
    length, n_out, stride = r.shape[dim], geom.out_shape[axis], geom.strides[axis]
    offsets = [t * geom.dilations[axis] - geom.pads_begin[axis] for t in range(geom.kernel[axis])]
    if geom.kernel[axis] == 1 and offsets[0] == 0 and stride == 1 and n_out == length:
        return r  # a window of one sample, the sample itself
    inner = math.prod(r.shape[dim + 1 :])
    if r.size == 0 or n_out == 0 or (n_out - 1) * stride >= length:
        return _reduce_axis_strided(r, geom, axis, combine, identity)
    order = _tap_order(length, geom, axis)
    if stride == 1 and n_out == length:
        # Output j reads input j + offset * inner: one flat shifted view per tap.
        return _lattice(r, dim, offsets, order, 1, n_out, combine, identity)
    if inner >= _LONG_ROWS:
        return _reduce_axis_strided(r, geom, axis, combine, identity)
    # Short rows, and the innermost axis at a stride: reduce at every position (stride 1,
    # contiguous reads), then keep every stride-th. Reading every stride-th sample instead
    # makes each tap a strided operation, about five times slower an element in numpy.
    every = _lattice(r, dim, offsets, order, 1, length, combine, identity)
    if stride == 2 and dim == r.ndim - 1:
        return _every_other(every, n_out)
    keep: list[slice] = [slice(None)] * r.ndim
    keep[dim] = slice(0, (n_out - 1) * stride + 1, stride)
    return np.ascontiguousarray(every[tuple(keep)])


# Rows at least this long make the strided views cheap (numpy's overhead is per row).
_LONG_ROWS = 32


def _every_other(every: np.ndarray, n_out: int) -> np.ndarray:
    """Positions 0, 2, 4 ... (n_out of them) of the innermost axis of the C-contiguous
    ``every``, as a new C-contiguous array.

    When rows have an even length and an element is 1, 2 or 4 bytes, each pair of elements
    is one unsigned integer of twice the width, and casting it to the narrower width keeps
    its low half: on a little-endian machine, the first element of the pair, bits and all
    (NaN payloads too). One contiguous cast runs about twice as fast as a stride-2 copy.
    """
    length = every.shape[-1]
    pair = _PAIRS.get(every.dtype.itemsize)
    if length % 2 or pair is None or sys.byteorder != "little" or every.size == 0:
        return np.ascontiguousarray(every[..., 0 : 2 * n_out - 1 : 2])
    wide, narrow = pair
    kept = np.empty((*every.shape[:-1], length // 2), every.dtype)
    np.copyto(kept.view(narrow), every.view(wide), casting="unsafe")
    return kept if n_out == length // 2 else np.ascontiguousarray(kept[..., :n_out])


_PAIRS: dict[int, tuple[np.dtype[Any], np.dtype[Any]]] = {
    1: (np.dtype(np.uint16), np.dtype(np.uint8)),
    2: (np.dtype(np.uint32), np.dtype(np.uint16)),
    4: (np.dtype(np.uint64), np.dtype(np.uint32)),
}


def _lattice(
    r: np.ndarray,
    dim: int,
    offsets: list[int],
    order: list[int | None],
    stride: int,
    n_out: int,
    combine: np.ufunc,
    identity: float | int,
) -> np.ndarray:
    """Positions 0, stride, 2 stride ... (n_out of them) along ``dim``; ``r`` C-contiguous,
    and ``inner`` == 1 when ``stride`` > 1, so that position j of the flat output reads
    j * stride + offset * inner of the flat input."""
    length = r.shape[dim]
    inner = math.prod(r.shape[dim + 1 :])
    shape = list(r.shape)
    shape[dim] = n_out
    reduced = np.empty(shape, r.dtype)
    flat, out = r.reshape(-1), reduced.reshape(-1)
    # Outputs [first, last) read every tap on the input; the others are edges.
    first = min(n_out, -(min(offsets) // stride) if min(offsets) < 0 else 0)
    last = max(first, min(n_out, (length - 1 - max(offsets)) // stride + 1))
    start, stop = first * inner, out.size - (n_out - last) * inner
    if last > first:  # else every output is an edge (a window wider than the axis)
        target = out[start:stop]

        def tap_view(tap: int) -> np.ndarray:
            begin = start * stride + offsets[tap] * inner
            return flat[begin : begin + (stop - start - 1) * stride + 1 : stride]

        taps = [tap for tap in order if tap is not None]
        if order[0] is None:
            target.fill(identity)
        elif len(taps) > 1:
            combine(tap_view(taps.pop(0)), tap_view(taps.pop(0)), out=target)
        else:
            np.copyto(target, tap_view(taps.pop(0)))
        for tap in taps:
            combine(target, tap_view(tap), out=target)
    for position in (*range(first), *range(last, n_out)):
        _edge_position(r, reduced, dim, position, stride, offsets, order, combine, identity)
    return reduced


def _tap_order(length: int, geom: WindowGeometry, axis: int) -> list[int | None]:
    """The taps in the order separable_reduce combines them: the tap covering every output
    first (None, for ``identity``, when no tap does), then the others by index."""
    n_out = geom.out_shape[axis]
    taps = [
        tap
        for tap in range(geom.kernel[axis])
        if tap_range(length, geom, axis, tap)[1] > tap_range(length, geom, axis, tap)[0]
    ]
    full = next((t for t in taps if tap_range(length, geom, axis, t)[:2] == (0, n_out)), None)
    if full is None:
        return [None, *taps]
    return [full, *(t for t in taps if t != full)]


def _edge_position(
    r: np.ndarray,
    reduced: np.ndarray,
    dim: int,
    position: int,
    stride: int,
    offsets: list[int],
    order: list[int | None],
    combine: np.ufunc,
    identity: float | int,
) -> None:
    """Output ``position`` along ``dim`` from the taps that land on the input, in ``order``."""
    length = r.shape[dim]
    # (outer, axis, inner): a position is then one strided run over the outer rows (a 1-D
    # one when inner == 1), not a row of the inner axes per outer index.
    outer = math.prod(r.shape[:dim])
    source = r.reshape(outer, length, -1)
    target = reduced.reshape(outer, reduced.shape[dim], -1)[:, position]
    samples = [
        source[:, sample]
        for sample in (position * stride + offsets[tap] for tap in order if tap is not None)
        if 0 <= sample < length
    ]
    if order[0] is None or not samples:
        target.fill(identity)
    elif len(samples) == 1:
        np.copyto(target, samples.pop(0))
    else:  # the first two in one operation (copying the first, then combining, rounds alike)
        combine(samples.pop(0), samples.pop(0), out=target)
    for sample in samples:
        combine(target, sample, out=target)


def _reduce_axis_strided(
    r: np.ndarray, geom: WindowGeometry, axis: int, combine: np.ufunc, identity: float | int
) -> np.ndarray:
    """One axis through strided views of the taps (the general way)."""
    dim = 2 + axis
    length, n_out, stride = r.shape[dim], geom.out_shape[axis], geom.strides[axis]
    shape = list(r.shape)
    shape[dim] = n_out
    reduced = np.empty(shape, r.dtype)
    order = _tap_order(length, geom, axis)
    began = False
    for tap in order:
        if tap is None:
            reduced.fill(identity)
            began = True
            continue
        lo, hi, first = tap_range(length, geom, axis, tap)
        source: list[slice] = [slice(None)] * r.ndim
        source[dim] = slice(first, first + (hi - lo - 1) * stride + 1, stride)
        target: list[slice] = [slice(None)] * r.ndim
        target[dim] = slice(lo, hi)
        window = reduced[tuple(target)]
        if began:
            combine(window, r[tuple(source)], out=window)
        else:
            np.copyto(window, r[tuple(source)])  # the full tap: it covers every output
            began = True
    if not began:
        reduced.fill(identity)
    return np.ascontiguousarray(reduced)
