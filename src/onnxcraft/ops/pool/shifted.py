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

All of that is decided by the input's shape and the geometry alone, so it is decided once:
``_program`` records the numpy operations a reduction needs (which views, which taps, which
edges) and keeps them per (shape, type, geometry, reduction); a run replays them. Working it
out took about 100 µs of Python a pooling node, more than the arithmetic on Inception's
7x7 to 28x28 maps.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable
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
        stack = np.ascontiguousarray(x).reshape(1, planes, *x.shape[2:])
        step = max(1, _CHUNK // max(per_plane, 1))
        out = np.empty((1, planes, *geom.out_shape), x.dtype)
        for start in range(0, planes, step):
            chunk = stack[:, start : start + step]
            program = _program(chunk.shape, x.dtype, geom, combine, identity)
            program.run(chunk, out[:, start : start + step])
        return out.reshape(*x.shape[:2], *geom.out_shape)
    return _program(x.shape, x.dtype, geom, combine, identity).run(x)


# Inputs over 1 MiB of float32 are reduced 512 KiB at a time, within the L2 cache with the
# temporaries. Once a chunk's operations were recorded (no Python to work them out again),
# this beat the earlier 8 MiB / 1 MiB on 3x3 MaxPools: 8x512x14x14 2.5 -> 1.6 ms,
# 1x64x112x112 1.22 -> 1.17 ms, 1x480x28x28 0.67 -> 0.63 ms; smaller chunks (256 KiB and
# below) paid more in per-chunk calls than they saved.
_CHUNKED_ABOVE = 1 << 18
_CHUNK = 1 << 17

# An operation of a program: it reads and writes the run's arrays (slot 0 the input).
_Op = Callable[[list[np.ndarray]], None]
_View = Callable[[list[np.ndarray]], np.ndarray]


class _Program:
    """The numpy operations reducing an input of one shape and type; arrays by slot."""

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
        self.dtype = dtype
        self.shapes: list[tuple[int, ...]] = [shape]  # slot 0 is the input
        self.ops: list[_Op] = []
        self.result = 0

    def new(self, shape: tuple[int, ...] | list[int]) -> int:
        """A slot for a new C-contiguous array, allocated when the run starts."""
        self.shapes.append(tuple(shape))
        return len(self.shapes) - 1

    def run(self, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The reduction of ``x``; written into ``out`` (C-contiguous) when given."""
        arrays = [np.ascontiguousarray(x)]
        for slot, shape in enumerate(self.shapes[1:], 1):
            if slot == self.result and out is not None:
                arrays.append(out.reshape(shape))
            else:
                arrays.append(np.empty(shape, self.dtype))
        for op in self.ops:
            op(arrays)
        if self.result == 0:  # windows of one sample: still a new array
            if out is None:
                return np.array(x, order="C", copy=True)
            np.copyto(out, x)
            return out
        return arrays[self.result]


def _view(slot: int, shape: tuple[int, ...], index: tuple[Any, ...] = ()) -> _View:
    """A view of a slot's array, reshaped (C order: always a view) then indexed."""
    return lambda arrays: arrays[slot].reshape(shape)[index]


def _combine(combine: np.ufunc, target: _View, a: _View, b: _View) -> _Op:
    def op(arrays: list[np.ndarray]) -> None:
        combine(a(arrays), b(arrays), out=target(arrays))

    return op


def _copy(target: _View, source: _View) -> _Op:
    def op(arrays: list[np.ndarray]) -> None:
        np.copyto(target(arrays), source(arrays))

    return op


def _fill(target: _View, value: float | int) -> _Op:
    def op(arrays: list[np.ndarray]) -> None:
        target(arrays).fill(value)

    return op


@functools.lru_cache(maxsize=512)
def _program(
    shape: tuple[int, ...],
    dtype: np.dtype[Any],
    geom: WindowGeometry,
    combine: np.ufunc,
    identity: float | int,
) -> _Program:
    program = _Program(shape, dtype)
    slot, current = 0, shape
    for axis in range(geom.ndim):  # outer axes first, as separable_reduce
        slot, current = _reduce_axis(program, slot, current, geom, axis, combine, identity)
    program.result = slot
    return program


def _reduce_axis(
    program: _Program,
    slot: int,
    shape: tuple[int, ...],
    geom: WindowGeometry,
    axis: int,
    combine: np.ufunc,
    identity: float | int,
) -> tuple[int, tuple[int, ...]]:
    dim = 2 + axis
    length, n_out, stride = shape[dim], geom.out_shape[axis], geom.strides[axis]
    offsets = [t * geom.dilations[axis] - geom.pads_begin[axis] for t in range(geom.kernel[axis])]
    if geom.kernel[axis] == 1 and offsets[0] == 0 and stride == 1 and n_out == length:
        return slot, shape  # a window of one sample, the sample itself
    inner = math.prod(shape[dim + 1 :])
    if math.prod(shape) == 0 or n_out == 0 or (n_out - 1) * stride >= length:
        return _reduce_axis_strided(program, slot, shape, geom, axis, combine, identity)
    order = _tap_order(length, geom, axis)
    if stride == 1 and n_out == length:
        # Output j reads input j + offset * inner: one flat shifted view per tap.
        return _lattice(program, slot, shape, dim, offsets, order, n_out, combine, identity)
    if inner >= _LONG_ROWS:
        return _reduce_axis_strided(program, slot, shape, geom, axis, combine, identity)
    # Short rows, and the innermost axis at a stride: reduce at every position (stride 1,
    # contiguous reads), then keep every stride-th. Reading every stride-th sample instead
    # makes each tap a strided operation, about five times slower an element in numpy.
    every, full = _lattice(
        program,
        slot,
        shape,
        dim,
        offsets,
        order,
        length,
        combine,
        identity,
        needed=range(0, (n_out - 1) * stride + 1, stride),
    )
    kept_shape = list(full)
    kept_shape[dim] = n_out
    kept = program.new(kept_shape)
    if stride == 2 and dim == len(shape) - 1:
        program.ops.append(_keep_every_other(every, kept, n_out))
        return kept, tuple(kept_shape)
    keep: list[slice] = [slice(None)] * len(shape)
    keep[dim] = slice(0, (n_out - 1) * stride + 1, stride)
    program.ops.append(_copy(_view(kept, tuple(kept_shape)), _view(every, full, tuple(keep))))
    return kept, tuple(kept_shape)


# Rows at least this long make the strided views cheap (numpy's overhead is per row).
_LONG_ROWS = 32


def _keep_every_other(every: int, kept: int, n_out: int) -> _Op:
    def op(arrays: list[np.ndarray]) -> None:
        _every_other(arrays[every], n_out, arrays[kept])

    return op


def _every_other(every: np.ndarray, n_out: int, out: np.ndarray | None = None) -> np.ndarray:
    """Positions 0, 2, 4 ... (n_out of them) of the innermost axis of the C-contiguous
    ``every``, as a new C-contiguous array (or written into the C-contiguous ``out``).

    When rows have an even length and an element is 1, 2 or 4 bytes, each pair of elements
    is one unsigned integer of twice the width, and casting it to the narrower width keeps
    its low half: on a little-endian machine, the first element of the pair, bits and all
    (NaN payloads too). One contiguous cast runs about twice as fast as a stride-2 copy.
    """
    length = every.shape[-1]
    if out is None:
        out = np.empty((*every.shape[:-1], n_out), every.dtype)
    pair = _PAIRS.get(every.dtype.itemsize)
    if length % 2 or pair is None or sys.byteorder != "little" or every.size == 0:
        np.copyto(out, every[..., 0 : 2 * n_out - 1 : 2])
        return out
    wide, narrow = pair
    if n_out == length // 2:
        np.copyto(out.view(narrow), every.view(wide), casting="unsafe")
        return out
    kept = np.empty((*every.shape[:-1], length // 2), every.dtype)
    np.copyto(kept.view(narrow), every.view(wide), casting="unsafe")
    np.copyto(out, kept[..., :n_out])
    return out


_PAIRS: dict[int, tuple[np.dtype[Any], np.dtype[Any]]] = {
    1: (np.dtype(np.uint16), np.dtype(np.uint8)),
    2: (np.dtype(np.uint32), np.dtype(np.uint16)),
    4: (np.dtype(np.uint64), np.dtype(np.uint32)),
}


def _lattice(
    program: _Program,
    slot: int,
    shape: tuple[int, ...],
    dim: int,
    offsets: list[int],
    order: list[int | None],
    n_out: int,
    combine: np.ufunc,
    identity: float | int,
    needed: range | None = None,
) -> tuple[int, tuple[int, ...]]:
    """Every position 0 ... n_out - 1 along ``dim`` (stride 1) of the C-contiguous ``slot``:
    position j of the flat output reads j + offset * inner of the flat input. When only the
    positions ``needed`` are read afterwards, the other edge positions are left unwritten."""
    length = shape[dim]
    inner = math.prod(shape[dim + 1 :])
    outer = math.prod(shape[:dim])
    out_shape = list(shape)
    out_shape[dim] = n_out
    reduced = program.new(out_shape)
    size, out_size = math.prod(shape), math.prod(out_shape)
    # Outputs [first, last) read every tap on the input; the others are edges.
    first = min(n_out, -min(offsets) if min(offsets) < 0 else 0)
    last = max(first, min(n_out, length - max(offsets)))
    start, stop = first * inner, out_size - (n_out - last) * inner
    if last > first:  # else every output is an edge (a window wider than the axis)
        target = _view(reduced, (out_size,), (slice(start, stop),))

        def tap_view(tap: int) -> _View:
            begin = start + offsets[tap] * inner
            return _view(slot, (size,), (slice(begin, begin + stop - start),))

        taps = [tap for tap in order if tap is not None]
        if order[0] is None:
            program.ops.append(_fill(target, identity))
        elif len(taps) > 1:
            program.ops.append(
                _combine(combine, target, tap_view(taps.pop(0)), tap_view(taps.pop(0)))
            )
        else:
            program.ops.append(_copy(target, tap_view(taps.pop(0))))
        for tap in taps:
            program.ops.append(_combine(combine, target, target, tap_view(tap)))
    for position in (*range(first), *range(last, n_out)):
        if needed is not None and position not in needed:
            continue  # dropped by the keeping that follows
        # (outer, axis, inner): a position is then one strided run over the outer rows (a
        # 1-D one when inner == 1), not a row of the inner axes per outer index.
        edge = _view(reduced, (outer, n_out, inner), (slice(None), position))
        samples = [
            _view(slot, (outer, length, inner), (slice(None), sample))
            for sample in (position + offsets[tap] for tap in order if tap is not None)
            if 0 <= sample < length
        ]
        if order[0] is None or not samples:
            program.ops.append(_fill(edge, identity))
        elif len(samples) == 1:
            program.ops.append(_copy(edge, samples.pop(0)))
        else:  # the first two in one operation (copying the first, then combining, rounds alike)
            program.ops.append(_combine(combine, edge, samples.pop(0), samples.pop(0)))
        for sample_view in samples:
            program.ops.append(_combine(combine, edge, edge, sample_view))
    return reduced, tuple(out_shape)


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


def _reduce_axis_strided(
    program: _Program,
    slot: int,
    shape: tuple[int, ...],
    geom: WindowGeometry,
    axis: int,
    combine: np.ufunc,
    identity: float | int,
) -> tuple[int, tuple[int, ...]]:
    """One axis through strided views of the taps (the general way)."""
    dim = 2 + axis
    length, n_out, stride = shape[dim], geom.out_shape[axis], geom.strides[axis]
    out_shape = list(shape)
    out_shape[dim] = n_out
    reduced = program.new(out_shape)
    order = _tap_order(length, geom, axis)
    whole = _view(reduced, tuple(out_shape))
    if order[0] is None:
        program.ops.append(_fill(whole, identity))
    reads: list[tuple[int, int, _View]] = []  # (lo, hi, view) of the taps landing on the input
    for tap in (tap for tap in order if tap is not None):
        lo, hi, first = tap_range(length, geom, axis, tap)
        source: list[slice] = [slice(None)] * len(shape)
        source[dim] = slice(first, first + (hi - lo - 1) * stride + 1, stride)
        reads.append((lo, hi, _view(slot, shape, tuple(source))))

    def part(lo: int, hi: int) -> _View:
        target: list[slice] = [slice(None)] * len(shape)
        target[dim] = slice(lo, hi)
        return _view(reduced, tuple(out_shape), tuple(target))

    if order[0] is not None:
        # The full tap (it covers every output) and the next one in one operation where
        # the next lands, the full tap copied elsewhere: one pass fewer than copying first.
        full = reads.pop(0)[2]
        if reads:
            lo, hi, read = reads.pop(0)
            program.ops.append(_combine(combine, part(lo, hi), _slice(full, dim, lo, hi), read))
            for a, b in ((0, lo), (hi, n_out)):
                if b > a:
                    program.ops.append(_copy(part(a, b), _slice(full, dim, a, b)))
        else:
            program.ops.append(_copy(whole, full))
    elif not reads:
        return reduced, tuple(out_shape)
    for lo, hi, read in reads:
        window = part(lo, hi)
        program.ops.append(_combine(combine, window, window, read))
    return reduced, tuple(out_shape)


def _slice(view: _View, dim: int, lo: int, hi: int) -> _View:
    """Positions [lo, hi) along ``dim`` of a view."""
    index: list[slice] = [slice(None)] * (dim + 1)
    index[dim] = slice(lo, hi)
    key = tuple(index)
    return lambda arrays: view(arrays)[key]
