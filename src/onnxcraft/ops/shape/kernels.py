"""Kernels for shape manipulation: Reshape, Transpose, Concat, Split, Slice, (Un)Squeeze, ..."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelContext, KernelRegistry
from onnxcraft.ops.kernel_common import fail, normalize_axes, normalize_axis
from onnxcraft.ops.run_guard import check_allocation
from onnxcraft.ops.shape.shapes import ceil_split_sizes, slice_bounds
from onnxcraft.ops.versions import versions, versions_between

__all__ = ["register"]


def _ints(value: Any) -> list[int]:
    array = np.asarray(value).reshape(-1)
    if array.dtype.kind in "iu":  # the same Python ints, without a numpy scalar each
        values: list[int] = array.tolist()
        return values
    return [int(v) for v in array]


def reshape(
    data: Any, shape: Any = None, *, allowzero: int = 0, consumed_inputs: Any = None
) -> np.ndarray:
    data = np.asarray(data)
    target = _ints(shape)
    if not allowzero:
        target = [data.shape[i] if d == 0 and i < data.ndim else d for i, d in enumerate(target)]
    if target.count(-1) > 1:
        fail("Reshape", f"shape {target} has more than one -1")
    try:
        return np.asarray(data.reshape(target))
    except ValueError:
        fail("Reshape", f"cannot reshape {list(data.shape)} into {target}")


def reshape_1(data: Any, *, shape: list[int], consumed_inputs: Any = None) -> np.ndarray:
    return reshape(data, np.asarray(shape))


def transpose(data: Any, *, perm: list[int] | None = None) -> np.ndarray:
    data = np.asarray(data)
    if perm is None:
        return np.transpose(data)
    if sorted(perm) != list(range(data.ndim)):
        fail("Transpose", f"perm {list(perm)} is not a permutation of {data.ndim} axes")
    return np.transpose(data, perm)


def concat(*inputs: Any, axis: int = 1) -> np.ndarray:
    arrays = [np.asarray(x) for x in inputs]
    if not arrays:
        fail("Concat", "needs at least one input")
    a = normalize_axis(axis, arrays[0].ndim, op="Concat")
    try:
        return np.concatenate(arrays, axis=a)
    except ValueError as exc:
        fail("Concat", f"inputs do not fit together: {exc}")


def _split_sizes(
    op: str, dim: int, count: int, split: list[int] | None, num_outputs: int | None
) -> list[int]:
    if split is not None:
        if sum(split) != dim:
            fail(op, f"split {split} does not add up to the axis length {dim}")
        return split
    if num_outputs is not None:
        sizes = ceil_split_sizes(dim, num_outputs)
        if sizes is None:
            fail(op, f"axis length {dim} cannot be split into {num_outputs} outputs")
        return sizes
    if dim % count:
        fail(op, f"axis length {dim} does not split evenly into {count} outputs")
    return [dim // count] * count


def _split(
    ctx: KernelContext,
    data: np.ndarray,
    axis: int,
    split: list[int] | None,
    num_outputs: int | None,
) -> tuple[np.ndarray, ...]:
    a = normalize_axis(axis, data.ndim, op="Split")
    sizes = _split_sizes("Split", data.shape[a], ctx.num_outputs, split, num_outputs)
    # Views between running totals, as np.split takes them (without its 4 µs of overhead).
    points = [0, *itertools.accumulate(sizes[:-1]), data.shape[a]]
    lead = (slice(None),) * a
    return tuple(data[lead + (slice(lo, hi),)] for lo, hi in itertools.pairwise(points))


def split_attr(
    ctx: KernelContext,
    data: Any,
    split_input: Any = None,
    *,
    axis: int = 0,
    split: list[int] | None = None,
) -> tuple[np.ndarray, ...]:
    sizes = split if split is not None else (None if split_input is None else _ints(split_input))
    return _split(ctx, np.asarray(data), axis, sizes, None)


def split(
    ctx: KernelContext,
    data: Any,
    split: Any = None,
    *,
    axis: int = 0,
    num_outputs: int | None = None,
) -> tuple[np.ndarray, ...]:
    return _split(ctx, np.asarray(data), axis, None if split is None else _ints(split), num_outputs)


def _slice(
    data: np.ndarray,
    starts: list[int],
    ends: list[int],
    axes: list[int] | None,
    steps: list[int] | None,
) -> np.ndarray:
    if axes is None:
        axes = list(range(len(starts)))
    if steps is None:
        steps = [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        fail("Slice", "starts, ends, axes and steps must have the same length")
    index = [slice(None)] * data.ndim
    for start, end, axis, step in zip(
        starts, ends, normalize_axes(axes, data.ndim, op="Slice"), steps
    ):
        if step == 0:
            fail("Slice", "steps must not be 0")
        first, stop = slice_bounds(data.shape[axis], start, end, step)
        # A backward stop of -1 means "through index 0": Python spells that None.
        index[axis] = slice(first, stop if stop >= 0 else None, step)
    return data[tuple(index)]


def slice_1(
    data: Any, *, starts: list[int], ends: list[int], axes: list[int] | None = None
) -> np.ndarray:
    return _slice(
        np.asarray(data), list(starts), list(ends), None if axes is None else list(axes), None
    )


def slice_(data: Any, starts: Any, ends: Any, axes: Any = None, steps: Any = None) -> np.ndarray:
    return _slice(
        np.asarray(data),
        _ints(starts),
        _ints(ends),
        None if axes is None else _ints(axes),
        None if steps is None else _ints(steps),
    )


def squeeze(data: Any, axes: Any = None) -> np.ndarray:
    data = np.asarray(data)
    if axes is None:
        return np.asarray(np.squeeze(data))
    norm = normalize_axes(_ints(axes), data.ndim, op="Squeeze")
    for a in norm:
        if data.shape[a] != 1:
            fail("Squeeze", f"cannot squeeze axis {a} of length {data.shape[a]}")
    return np.asarray(np.squeeze(data, axis=norm))


def squeeze_attr(data: Any, *, axes: list[int] | None = None) -> np.ndarray:
    return squeeze(data, None if axes is None else np.asarray(axes))


def unsqueeze(data: Any, axes: Any) -> np.ndarray:
    data = np.asarray(data)
    values = _ints(axes)
    norm = sorted(normalize_axes(values, data.ndim + len(values), op="Unsqueeze"))
    shape = list(data.shape)
    for a in norm:
        shape.insert(a, 1)
    return np.asarray(data.reshape(shape))


def unsqueeze_attr(data: Any, *, axes: list[int]) -> np.ndarray:
    return unsqueeze(data, np.asarray(axes))


def shape(data: Any, *, start: int = 0, end: int | None = None) -> np.ndarray:
    dims = np.asarray(data).shape
    # Shape-15's start and end clamp as Slice's bounds do with step 1.
    first, stop = slice_bounds(len(dims), start, len(dims) if end is None else end, 1)
    return np.array(dims[first:stop], dtype=np.int64)


def size(data: Any) -> np.ndarray:
    return np.array(np.asarray(data).size, dtype=np.int64)


def flatten(data: Any, *, axis: int = 1) -> np.ndarray:
    data = np.asarray(data)
    a = axis + data.ndim if axis < 0 else axis
    if not 0 <= a <= data.ndim:
        fail("Flatten", f"axis={axis} is out of range for rank {data.ndim}")
    # math.prod of the shape's ints: np.prod converts the tuple to an array first (4 µs)
    flat: np.ndarray = data.reshape(math.prod(data.shape[:a]), math.prod(data.shape[a:]))
    return flat


def flatten_1(data: Any, *, axis: int = 1) -> np.ndarray:
    """Flatten-1 and -9: axis in [0, rank]; negative axes came with version 11."""
    if axis < 0:
        fail("Flatten", f"axis={axis} is negative; Flatten before version 11 takes [0, rank]")
    return flatten(data, axis=axis)


def expand(data: Any, shape: Any) -> np.ndarray:
    data = np.asarray(data)
    try:
        target = np.broadcast_shapes(data.shape, tuple(_ints(shape)))
    except ValueError:
        fail("Expand", f"shape {_ints(shape)} does not broadcast with {list(data.shape)}")
    check_allocation("Expand", target, data.dtype)
    return np.array(np.broadcast_to(data, target))


def tile(data: Any, repeats: Any, axis: Any = None) -> np.ndarray:
    data = np.asarray(data)
    if axis is not None:  # Tile-1: one axis, one repeat count
        reps = [1] * data.ndim
        reps[int(np.asarray(axis).reshape(-1)[0])] = int(np.asarray(repeats).reshape(-1)[0])
        check_allocation("Tile", (n * r for n, r in zip(data.shape, reps)), data.dtype)
        return np.tile(data, reps)
    reps = _ints(repeats)
    if len(reps) != data.ndim:
        fail("Tile", f"repeats has {len(reps)} entries for a rank-{data.ndim} input")
    check_allocation("Tile", (n * r for n, r in zip(data.shape, reps)), data.dtype)
    return np.tile(data, reps)


def identity(value: Any) -> Any:
    return value


def register(kernels: KernelRegistry) -> None:
    kernels.add("Reshape", reshape_1, since=versions_between("Reshape", 1, 4))
    kernels.add("Reshape", reshape, since=versions_between("Reshape", 5))
    kernels.add("Transpose", transpose, since=versions("Transpose"))
    kernels.add("Concat", concat, since=versions("Concat"))
    kernels.add("Split", split_attr, since=versions_between("Split", 1, 11), context=True)
    kernels.add("Split", split, since=versions_between("Split", 13), context=True)
    kernels.add("Slice", slice_1, since=versions_between("Slice", 1, 9))
    kernels.add("Slice", slice_, since=versions_between("Slice", 10))
    kernels.add("Squeeze", squeeze_attr, since=versions_between("Squeeze", 1, 12))
    kernels.add("Squeeze", squeeze, since=versions_between("Squeeze", 13))
    kernels.add("Unsqueeze", unsqueeze_attr, since=versions_between("Unsqueeze", 1, 12))
    kernels.add("Unsqueeze", unsqueeze, since=versions_between("Unsqueeze", 13))
    kernels.add("Shape", shape, since=versions("Shape"))
    kernels.add("Size", size, since=versions("Size"))
    kernels.add("Flatten", flatten_1, since=versions_between("Flatten", 1, 10))
    kernels.add("Flatten", flatten, since=versions_between("Flatten", 11))
    kernels.add("Expand", expand, since=versions("Expand"))
    kernels.add("Tile", tile, since=versions("Tile"))
    kernels.add("Identity", identity, since=versions("Identity"))
