"""Kernels for the Gather and Scatter families."""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.ops.indexing.shapes import gather_nd_shape
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import fail, is_lowp, normalize_axis
from onnxcraft.ops.lowp import Precision, as_float, encode_like
from onnxcraft.ops.versions import versions

__all__ = ["register"]


def _checked(op: str, indices: np.ndarray, dim: int) -> np.ndarray:
    indices = indices.astype(np.int64)
    if indices.size and (indices.min() < -dim or indices.max() >= dim):
        fail(
            op,
            f"indices must be in [{-dim}, {dim - 1}], "
            f"got values from {indices.min()} to {indices.max()}",
        )
    return np.where(indices < 0, indices + dim, indices)


def gather(data: Any, indices: Any, *, axis: int = 0) -> np.ndarray:
    data, indices = np.asarray(data), np.asarray(indices)
    a = normalize_axis(axis, data.ndim, op="Gather")
    taken = np.take(data, _checked("Gather", indices, data.shape[a]), axis=a)
    # A scalar index into a vector gives a numpy scalar, or a bare str for strings: an array.
    return np.asarray(taken, dtype=data.dtype)


def gather_elements(data: Any, indices: Any, *, axis: int = 0) -> np.ndarray:
    data, indices = np.asarray(data), np.asarray(indices)
    a = normalize_axis(axis, data.ndim, op="GatherElements")
    if indices.ndim != data.ndim:
        fail("GatherElements", f"indices has rank {indices.ndim}, data has rank {data.ndim}")
    _check_within("GatherElements", "indices", indices.shape, data.shape, a)
    # The output has the indices' shape: off the axis, read the leading part of data only
    # (take_along_axis would broadcast the indices up to the data's dims instead).
    window = tuple(slice(None) if d == a else slice(0, indices.shape[d]) for d in range(data.ndim))
    checked = _checked("GatherElements", indices, data.shape[a])
    return np.take_along_axis(data[window], checked, axis=a)


def _check_within(
    op: str, arg: str, shape: tuple[int, ...], data_shape: tuple[int, ...], axis: int
) -> None:
    """Off ``axis``, every dim of ``arg`` must be at most the data's."""
    for d, (size, limit) in enumerate(zip(shape, data_shape)):
        if d != axis and size > limit:
            fail(
                op,
                f"{arg} dim {d} must be <= data's ({limit}) off axis {axis}, got {size} "
                f"({arg} shape {list(shape)}, data shape {list(data_shape)})",
            )


_REDUCTIONS = {
    "none": None,
    "add": np.add,
    "mul": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
}


def _reducer(op: str, reduction: str, data: np.ndarray, updates: np.ndarray) -> Any:
    if reduction not in _REDUCTIONS:
        fail(op, f"reduction must be one of {sorted(_REDUCTIONS)}, got {reduction!r}")
    # On strings add concatenates and min/max compare as text; a product has no meaning
    # (onnxruntime refuses it too, once an update applies).
    if reduction == "mul" and data.dtype == object and updates.size:
        fail(
            op,
            "reduction 'mul' needs numeric or bool data, got tensor(string) "
            "(strings have no product)",
        )
    return _REDUCTIONS[reduction]


def scatter_elements(
    data: Any, indices: Any, updates: Any, *, axis: int = 0, reduction: str = "none"
) -> np.ndarray:
    op = "ScatterElements"
    data, updates = np.asarray(data), np.asarray(updates)
    a = normalize_axis(axis, data.ndim, op=op)
    index = np.asarray(indices)
    if index.ndim != data.ndim or updates.shape != index.shape:
        fail(
            op,
            f"indices and updates must have the same shape, of data's rank {data.ndim}; got "
            f"indices {list(index.shape)}, updates {list(updates.shape)}",
        )
    _check_within(op, "indices", index.shape, data.shape, a)
    index = _checked(op, index, data.shape[a])
    result = data.copy()
    # Full coordinates of every update; updates apply in order, so duplicates accumulate.
    grid: list[np.ndarray] = list(np.indices(index.shape))
    grid[a] = index
    coords = tuple(g.reshape(-1) for g in grid)
    values = updates.reshape(-1)
    fn = _reducer(op, reduction, data, updates)
    if fn is None:
        result[coords] = values
    elif is_lowp(result):
        result = _reduce_lowp(op, result, coords, values, fn)
    else:
        fn.at(result, coords, values)
    return np.asarray(result)


def _reduce_lowp(
    op: str, data: np.ndarray, coords: tuple[np.ndarray, ...], values: np.ndarray, fn: Any
) -> np.ndarray:
    """``fn.at(data, coords, values)`` for a low-precision type: decoded, reduced with every
    step rounded to the type (as the standard applies the updates one after the other), encoded.

    Updates go in rounds: round k applies the k-th update of every element, so no element is
    hit twice within a round and each element sees its updates in order.
    """
    precision = Precision.of(op, data, "data")
    if not values.size:
        return data
    work, vals = as_float(data), as_float(values)
    flat = np.ravel_multi_index(coords, data.shape)
    # The rank of each update among those of its element: its position in a stable sort by
    # element, less the position where that element's run of updates starts.
    order = np.argsort(flat, kind="stable")
    ranked = flat[order]
    positions = np.arange(flat.size)
    run_start = np.r_[True, ranked[1:] != ranked[:-1]]
    starts = np.maximum.accumulate(np.where(run_start, positions, 0))
    ranks = np.empty_like(positions)
    ranks[order] = positions - starts
    view = work.reshape(-1)
    for k in range(int(ranks.max(initial=-1)) + 1):
        hit = ranks == k
        view[flat[hit]] = precision.round(fn(view[flat[hit]], vals[hit]))
    return encode_like(work, data)


def scatter_nd(data: Any, indices: Any, updates: Any, *, reduction: str = "none") -> np.ndarray:
    op = "ScatterND"
    data, updates = np.asarray(data), np.asarray(updates)
    index = np.asarray(indices).astype(np.int64)
    depth = index.shape[-1]
    if depth > data.ndim:
        fail(op, f"index depth {depth} exceeds the data rank {data.ndim}")
    expected = index.shape[:-1] + data.shape[depth:]
    if updates.shape != expected:
        fail(op, f"updates must have shape {list(expected)}, got {list(updates.shape)}")
    dims = np.array(data.shape[:depth])
    outside = (index < -dims) | (index >= dims)
    if outside.any():
        row = index.reshape(-1, depth)[outside.reshape(-1, depth).any(axis=1)][0]
        fail(op, f"index {row.tolist()} is out of range for data of shape {list(data.shape)}")
    index = np.where(index < 0, index + dims, index)
    fn = _reducer(op, reduction, data, updates)
    lowp = fn is not None and is_lowp(data)
    # A low-precision type reduces on decoded values, each step rounded to the type.
    result = as_float(data).copy() if lowp else data.copy()
    values = as_float(updates) if lowp else updates
    step = _rounded(fn, Precision.of(op, data, "data")) if lowp else fn
    flat = index.reshape(-1, depth)
    values = values.reshape((flat.shape[0],) + data.shape[depth:])
    for row, value in zip(flat, values):
        key = tuple(row)
        result[key] = value if step is None else step(result[key], value)
    return encode_like(result, data) if lowp else np.asarray(result)


def _rounded(fn: Any, precision: Precision) -> Any:
    """``fn`` with its result rounded to ``precision``'s type (kept decoded)."""

    def step(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return precision.round(fn(a, b))

    return step


def gather_nd(data: Any, indices: Any, *, batch_dims: int = 0) -> np.ndarray:
    data = np.asarray(data)
    index = np.asarray(indices).astype(np.int64)
    depth = index.shape[-1]
    batch_shape = data.shape[:batch_dims]
    batch = int(np.prod(batch_shape)) if batch_dims else 1
    flat_data = data.reshape((batch,) + data.shape[batch_dims:])
    flat_index = index.reshape((batch, -1, depth))
    dims = np.array(data.shape[batch_dims : batch_dims + depth])
    flat_index = np.where(flat_index < 0, flat_index + dims, flat_index)
    out = [flat_data[b][tuple(flat_index[b].T)] for b in range(batch)]
    result = np.stack(out) if out else np.zeros((0,), data.dtype)
    return np.asarray(result.reshape(gather_nd_shape(data.shape, index.shape, depth, batch_dims)))


def register(kernels: KernelRegistry) -> None:
    kernels.add("Gather", gather, since=versions("Gather"))
    kernels.add("GatherElements", gather_elements, since=versions("GatherElements"))
    kernels.add("GatherND", gather_nd, since=versions("GatherND"))
    kernels.add("Scatter", scatter_elements, since=versions("Scatter"))
    kernels.add("ScatterElements", scatter_elements, since=versions("ScatterElements"))
    kernels.add("ScatterND", scatter_nd, since=versions("ScatterND"))
