"""Pooling kernels: MaxPool, AveragePool, LpPool, their Global forms, and MaxUnpool.

Windows are reduced tap by tap over flat, shifted views of the input
(:mod:`onnxcraft.ops.pool.shifted`); MaxPool's indices read the taps as strided views of the
padded input (:func:`onnxcraft.ops.im2col.tap_views`). Nothing loops over output pixels.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from onnxcraft.ops.im2col import (
    WindowGeometry,
    int_list,
    pad_spatial,
    resolve_geometry,
    tap_counts,
    tap_views,
)
from onnxcraft.ops.kernel_api import KernelContext, KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail
from onnxcraft.ops.pool.shifted import window_reduce
from onnxcraft.ops.windows import transposed_window_size

__all__ = ["register"]


def _pool_geometry(
    op: str,
    x: np.ndarray,
    *,
    kernel_shape: Sequence[int] | None,
    strides: Sequence[int] | None,
    dilations: Sequence[int] | None,
    pads: Sequence[int] | None,
    auto_pad: str,
    ceil_mode: int,
) -> WindowGeometry:
    if x.ndim < 3:
        fail(op, f"input X must have rank >= 3 (N, C, spatial...), got shape {x.shape}")
    if not kernel_shape:
        fail(op, "attribute kernel_shape is required")
    if len(kernel_shape) != x.ndim - 2:
        fail(
            op,
            f"kernel_shape={list(kernel_shape)} must have one entry per spatial axis of X "
            f"(shape {x.shape})",
        )
    return _resolved_geometry(
        op,
        x.shape[2:],
        _ints(kernel_shape),
        _ints(strides),
        _ints(dilations),
        _ints(pads),
        auto_pad,
        bool(ceil_mode),
    )


def _ints(values: Sequence[int] | None) -> tuple[int, ...] | None:
    return None if values is None else tuple(int(v) for v in values)


# A model's pooling nodes see the same shapes run after run: resolving their geometry
# (about 15 µs of Python) once per shape and attributes is enough. Errors are not cached.
@functools.lru_cache(maxsize=512)
def _resolved_geometry(
    op: str,
    spatial: tuple[int, ...],
    kernel_shape: tuple[int, ...] | None,
    strides: tuple[int, ...] | None,
    dilations: tuple[int, ...] | None,
    pads: tuple[int, ...] | None,
    auto_pad: str,
    ceil_mode: bool,
) -> WindowGeometry:
    assert kernel_shape is not None
    return resolve_geometry(
        op,
        spatial,
        kernel_shape,
        strides=strides,
        dilations=dilations,
        pads=pads,
        auto_pad=auto_pad,
        ceil_mode=ceil_mode,
    )


def _lowest(dtype: np.dtype[Any]) -> Any:
    if dtype.kind == "f":
        return -np.inf
    return np.iinfo(dtype).min


def _max_indices(
    x: np.ndarray, padded: np.ndarray, geom: WindowGeometry, result: np.ndarray, storage_order: int
) -> np.ndarray:
    """Flat input index of the first maximum of every window (row- or column-major).

    Only samples on the input count: the padding holds the type's lowest value, which a
    sample may equal (0 in uint8, -inf). A NaN maximum is the first NaN of the window.
    """
    nd = geom.ndim
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    best = np.full(result.shape, -1, np.int64)
    result_nan = np.isnan(result) if result.dtype.kind == "f" else None
    for on_input_only in (True, False):  # then, for windows of padding alone, any sample
        for tap_index, (tap, view) in enumerate(
            zip(np.ndindex(*geom.kernel), tap_views(padded, geom), strict=True)
        ):
            hit = view == result
            if result_nan is not None:
                hit |= result_nan & np.isnan(view)
            hit &= best < 0
            if on_input_only:
                hit &= _tap_on_input(tap, geom, spatial)
            best[hit] = tap_index
        if not (best < 0).any():
            break
    taps = np.unravel_index(best, geom.kernel)
    flat = np.zeros(result.shape, np.int64)
    grids = np.meshgrid(*[np.arange(o) for o in geom.out_shape], indexing="ij")
    coords = [
        grids[i] * geom.strides[i] + taps[i] * geom.dilations[i] - geom.pads_begin[i]
        for i in range(nd)
    ]
    # Row-major over (D1..Dn) for storage_order 0, column-major over them for 1.
    order = range(nd) if storage_order == 0 else reversed(range(nd))
    for i in order:
        flat = flat * spatial[i] + coords[i]
    base = np.arange(n * c, dtype=np.int64).reshape((n, c) + (1,) * nd) * int(np.prod(spatial))
    return np.asarray(flat + base)


def _tap_on_input(tap: tuple[int, ...], geom: WindowGeometry, spatial: tuple[int, ...]) -> Any:
    """Which windows' sample at ``tap`` lies on the input (not on padding), shaped to
    broadcast over (N, C, out...)."""
    on_input: Any = True
    for axis, (t, length) in enumerate(zip(tap, spatial, strict=True)):
        start = np.arange(geom.out_shape[axis]) * geom.strides[axis] - geom.pads_begin[axis]
        sample = start + t * geom.dilations[axis]
        shape = [1] * (2 + geom.ndim)
        shape[2 + axis] = -1
        on_input = on_input & ((sample >= 0) & (sample < length)).reshape(shape)
    return on_input


def _max_pool(
    x: np.ndarray,
    *,
    auto_pad: str = "NOTSET",
    ceil_mode: int = 0,
    dilations: Sequence[int] | None = None,
    kernel_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    storage_order: int = 0,
    strides: Sequence[int] | None = None,
    want_indices: bool = True,
) -> tuple[np.ndarray, np.ndarray | None]:
    geom = _pool_geometry(
        "MaxPool",
        x,
        kernel_shape=kernel_shape,
        strides=strides,
        dilations=dilations,
        pads=pads,
        auto_pad=auto_pad,
        ceil_mode=ceil_mode,
    )
    result = window_reduce(x, geom, np.maximum, _lowest(x.dtype))
    if not want_indices:
        return result, None
    padded = pad_spatial(x, geom, _lowest(x.dtype))
    return result, _max_indices(x, padded, geom, result, storage_order)


@compute_in_float32
def max_pool(
    x: np.ndarray,
    *,
    auto_pad: str = "NOTSET",
    ceil_mode: int = 0,
    dilations: Sequence[int] | None = None,
    kernel_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    storage_order: int = 0,
    strides: Sequence[int] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """MaxPool-8 and later: window maxima and the flat index of each maximum."""
    values, indices = _max_pool(
        x,
        auto_pad=auto_pad,
        ceil_mode=ceil_mode,
        dilations=dilations,
        kernel_shape=kernel_shape,
        pads=pads,
        storage_order=storage_order,
        strides=strides,
    )
    assert indices is not None
    return values, indices


def _max_pool_node(ctx: KernelContext, x: np.ndarray, **attributes: Any) -> Any:
    """MaxPool as a graph node: Indices are computed only when the node asks for them."""
    want = ctx.num_outputs > 1 and ctx.outputs_requested[1]
    if want:
        return max_pool(x, **attributes)
    return _max_pool_values(x, **attributes), None


@compute_in_float32
def _max_pool_values(x: np.ndarray, **attributes: Any) -> np.ndarray:
    return _max_pool(x, want_indices=False, **attributes)[0]


@compute_in_float32
def max_pool_1(
    x: np.ndarray,
    *,
    auto_pad: str = "NOTSET",
    kernel_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """MaxPool-1: window maxima only (no Indices output, no ceil_mode or dilations)."""
    return _max_pool(
        x,
        auto_pad=auto_pad,
        kernel_shape=kernel_shape,
        pads=pads,
        strides=strides,
        want_indices=False,
    )[0]


@functools.lru_cache(maxsize=512)
def _valid_counts(
    spatial: tuple[int, ...], geom: WindowGeometry, include_pad: bool, dtype: type[np.floating[Any]]
) -> np.ndarray:
    """How many taps of each window fall on the input (or on explicit padding too), in
    ``dtype``; kept per shape and geometry, read-only."""
    counts = np.ones((1, 1, *((1,) * geom.ndim)), np.int64)
    for axis in range(geom.ndim):
        along = tap_counts(spatial[axis], geom, axis, padded_extent=include_pad)
        shape = [1] * (2 + geom.ndim)
        shape[2 + axis] = -1
        counts = counts * along.reshape(shape)
    typed = counts.astype(dtype)
    typed.flags.writeable = False
    return typed


@compute_in_float32
def average_pool(
    x: np.ndarray,
    *,
    auto_pad: str = "NOTSET",
    ceil_mode: int = 0,
    count_include_pad: int = 0,
    dilations: Sequence[int] | None = None,
    kernel_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """AveragePool (every version): window means, padding counted per count_include_pad."""
    geom = _pool_geometry(
        "AveragePool",
        x,
        kernel_shape=kernel_shape,
        strides=strides,
        dilations=dilations,
        pads=pads,
        auto_pad=auto_pad,
        ceil_mode=ceil_mode,
    )
    ct = np.float64 if x.dtype == np.float64 else np.float32
    total = window_reduce(x.astype(ct, copy=False), geom, np.add, 0)
    counts = _valid_counts(x.shape[2:], geom, bool(count_include_pad), ct)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.divide(total, counts, out=total)  # total is a new array
    return np.asarray(mean.astype(x.dtype, copy=False))


def _lp_pool(
    x: np.ndarray,
    p: float,
    *,
    auto_pad: str = "NOTSET",
    ceil_mode: int = 0,
    dilations: Sequence[int] | None = None,
    kernel_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    geom = _pool_geometry(
        "LpPool",
        x,
        kernel_shape=kernel_shape,
        strides=strides,
        dilations=dilations,
        pads=pads,
        auto_pad=auto_pad,
        ceil_mode=ceil_mode,
    )
    ct = np.float64 if x.dtype == np.float64 else np.float32
    powered = np.abs(x.astype(ct)) ** ct(p)
    total = window_reduce(powered, geom, np.add, 0)
    return np.asarray((total ** ct(1.0 / p)).astype(x.dtype))


@compute_in_float32
def lp_pool(
    x: np.ndarray,
    *,
    auto_pad: str = "NOTSET",
    ceil_mode: int = 0,
    dilations: Sequence[int] | None = None,
    kernel_shape: Sequence[int] | None = None,
    p: int = 2,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """LpPool-2 and later: the p-norm of every window (v18 adds ceil_mode and dilations)."""
    return _lp_pool(
        x,
        float(p),
        auto_pad=auto_pad,
        ceil_mode=ceil_mode,
        dilations=dilations,
        kernel_shape=kernel_shape,
        pads=pads,
        strides=strides,
    )


def lp_pool_1(
    x: np.ndarray,
    *,
    auto_pad: str = "NOTSET",
    kernel_shape: Sequence[int] | None = None,
    p: float = 2.0,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """LpPool-1: as later versions, with a float ``p``."""
    return _lp_pool(
        x, float(p), auto_pad=auto_pad, kernel_shape=kernel_shape, pads=pads, strides=strides
    )


def _spatial_axes(op: str, x: np.ndarray) -> tuple[int, ...]:
    if x.ndim < 3:
        fail(op, f"input X must have rank >= 3 (N, C, spatial...), got shape {x.shape}")
    return tuple(range(2, x.ndim))


@compute_in_float32
def global_average_pool(x: np.ndarray) -> np.ndarray:
    """GlobalAveragePool: the mean over every spatial axis, kept as size-1 axes."""
    axes = _spatial_axes("GlobalAveragePool", x)
    ct = np.float64 if x.dtype == np.float64 else np.float32
    return np.mean(x, axis=axes, keepdims=True, dtype=ct).astype(x.dtype)


@compute_in_float32
def global_max_pool(x: np.ndarray) -> np.ndarray:
    """GlobalMaxPool: the maximum over every spatial axis, kept as size-1 axes."""
    axes = _spatial_axes("GlobalMaxPool", x)
    if any(x.shape[a] == 0 for a in axes):
        fail("GlobalMaxPool", f"input X has an empty spatial axis, shape {x.shape}")
    return np.asarray(np.max(x, axis=axes, keepdims=True))


@compute_in_float32
def global_lp_pool(x: np.ndarray, *, p: float = 2) -> np.ndarray:
    """GlobalLpPool (every version): the p-norm over every spatial axis."""
    axes = _spatial_axes("GlobalLpPool", x)
    ct = np.float64 if x.dtype == np.float64 else np.float32
    total = np.sum(np.abs(x.astype(ct)) ** ct(p), axis=axes, keepdims=True)
    return np.asarray((total ** ct(1.0 / float(p))).astype(x.dtype))


def max_unpool(
    x: np.ndarray,
    indices: np.ndarray,
    output_shape: np.ndarray | None = None,
    *,
    kernel_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """MaxUnpool (every version): scatter values back to the flat positions MaxPool reported."""
    op = "MaxUnpool"
    if x.ndim < 3 or indices.shape != x.shape:
        fail(op, f"X must have rank >= 3 and I the same shape, got X {x.shape}, I {indices.shape}")
    nd = x.ndim - 2
    if not kernel_shape or len(kernel_shape) != nd:
        fail(op, f"kernel_shape must have {nd} entries, got {kernel_shape}")
    strides_t = int_list(strides, nd, 1)
    pads_t = int_list(pads, 2 * nd, 0)
    shape = x.shape[:2] + tuple(
        transposed_window_size(
            x.shape[2 + i], strides_t[i], int(kernel_shape[i]), pads_t[i] + pads_t[nd + i]
        )
        for i in range(nd)
    )
    out = np.zeros(shape, x.dtype)
    flat = indices.astype(np.int64).reshape(-1)
    if flat.size and (flat.min() < 0 or flat.max() >= out.size):
        fail(op, f"indices must lie in [0, {out.size}) for the unpooled shape {shape}")
    out.reshape(-1)[flat] = x.reshape(-1)
    if output_shape is None:
        return out
    # Indices address the default unpooled shape; a requested larger output adds zeros at the
    # end of every spatial axis (as the node tests expect).
    target = tuple(int(v) for v in np.asarray(output_shape).reshape(-1))
    if (
        len(target) != x.ndim
        or target[:2] != x.shape[:2]
        or any(t < s_ for t, s_ in zip(target, shape, strict=True))
    ):
        fail(op, f"output_shape must keep N, C and be at least {list(shape)}, got {list(target)}")
    return np.pad(out, [(0, t - s_) for t, s_ in zip(target, shape, strict=True)])
    return out


def register(kernels: KernelRegistry) -> None:
    """Add the pooling kernels to ``kernels``."""
    kernels.add("MaxPool", max_pool_1, since=1)
    kernels.add("MaxPool", _max_pool_node, since=(8, 10, 11, 12, 22), context=True)
    kernels.add("AveragePool", average_pool, since=(1, 7, 10, 11, 19, 22))
    kernels.add("LpPool", lp_pool_1, since=1)
    kernels.add("LpPool", lp_pool, since=(2, 11, 18, 22))
    kernels.add("GlobalAveragePool", global_average_pool, since=(1, 22))
    kernels.add("GlobalMaxPool", global_max_pool, since=(1, 22))
    kernels.add("GlobalLpPool", global_lp_pool, since=(1, 2, 22))
    kernels.add("MaxUnpool", max_unpool, since=(9, 11, 22))
