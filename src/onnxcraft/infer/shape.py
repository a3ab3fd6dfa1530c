"""Rules for shape manipulation: Reshape, Transpose, Concat, Split, Slice, (Un)Squeeze, Shape..."""

from __future__ import annotations

import numpy as np

from onnxcraft.core.types import Dim, Tensor, ValueType
from onnxcraft.dtypes import ElementType
from onnxcraft.infer.common import dim_product, dim_sum, normalize_axis
from onnxcraft.infer.registry import ALL_VERSIONS, InferenceContext, RuleRegistry

__all__ = ["register"]


def _reshape(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    target = ctx.attr("shape") if ctx.op.since_version < 5 else ctx.int_values(1)
    if target is None:
        length = ctx.shape(1)
        rank = length[0] if length is not None and len(length) == 1 else None
        return [Tensor(elem, None if not isinstance(rank, int) else (None,) * rank)]
    allow_zero = bool(ctx.attr("allowzero", 0))
    dims: list[Dim] = []
    unknown_at = None
    for i, d in enumerate(target):
        if d == 0 and not allow_zero:
            if shape is None or i >= len(shape):
                if shape is not None:
                    raise ctx.fail(
                        f"shape[{i}] = 0 copies a dim the input (rank {len(shape)}) lacks"
                    )
                dims.append(None)
            else:
                dims.append(shape[i])
        elif d == -1:
            if unknown_at is not None:
                raise ctx.fail(f"shape {list(target)} has more than one -1")
            unknown_at = i
            dims.append(None)
        elif d < -1:
            raise ctx.fail(f"shape {list(target)} has an invalid dim {d}")
        else:
            dims.append(d)
    total = dim_product(shape) if shape is not None else None
    clash = f"cannot reshape {shape} ({total} elements) into {list(target)}"
    if unknown_at is not None and total is not None:
        known = dim_product([d for j, d in enumerate(dims) if j != unknown_at])
        if known is not None:
            if known == 0 or total % known:
                raise ctx.fail(clash)
            dims[unknown_at] = total // known
    elif unknown_at is None and total is not None:
        count = dim_product(dims)
        if count is not None and count != total:
            raise ctx.fail(clash)
    return [Tensor(elem, tuple(dims))]


def _transpose(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    perm = ctx.attr("perm")
    if shape is None:
        return [Tensor(ctx.elem(0), None if perm is None else (None,) * len(perm))]
    if perm is None:
        perm = list(range(len(shape)))[::-1]
    if sorted(int(p) for p in perm) != list(range(len(shape))):
        raise ctx.fail(f"perm {list(perm)} is not a permutation of the {len(shape)} axes")
    return [Tensor(ctx.elem(0), tuple(shape[int(p)] for p in perm))]


def _concat(ctx: InferenceContext) -> list[ValueType | None]:
    shapes = [ctx.shape(i) for i in range(len(ctx.input_types))]
    elem = next((ctx.elem(i) for i in range(len(shapes)) if ctx.elem(i) is not None), None)
    known = [s for s in shapes if s is not None]
    if not known:
        return [Tensor(elem, None)]
    rank = len(known[0])
    if any(len(s) != rank for s in known):
        raise ctx.fail(f"inputs have different ranks: {[list(s) for s in known]}")
    axis = normalize_axis(ctx, int(ctx.attr("axis", 1)), rank)
    if len(known) != len(shapes):
        return [Tensor(elem, tuple(None if i == axis else known[0][i] for i in range(rank)))]
    out: list[Dim] = []
    for i in range(rank):
        column = [s[i] for s in known]
        if i == axis:
            out.append(dim_sum(column))
            continue
        statics = {d for d in column if isinstance(d, int)}
        if len(statics) > 1:
            raise ctx.fail(f"inputs differ in dimension {i} (not the concat axis): {column}")
        out.append(statics.pop() if statics else (column[0] if len(set(column)) == 1 else None))
    values = [ctx.value(i) for i in range(len(shapes))]
    if all(v is not None for v in values) and all(v.size <= 64 for v in values):  # type: ignore[union-attr]
        ctx.set_value(0, np.concatenate(values, axis=axis))  # type: ignore[arg-type]
    return [Tensor(elem, tuple(out))]


def _split(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    n = ctx.num_outputs
    if shape is None:
        return [Tensor(elem, None)] * n
    axis = normalize_axis(ctx, int(ctx.attr("axis", 0)), len(shape))
    sizes = ctx.attr("split") if ctx.op.since_version < 13 else ctx.int_values(1)
    dim = shape[axis]
    split_given = ctx.op.since_version >= 13 and ctx.has_input(1) or (
        ctx.op.since_version < 13 and ctx.has_input(1))
    if sizes is None and split_given:
        # The sizes come from a tensor whose value is unknown here: the axis is unknown.
        return [Tensor(elem, (*shape[:axis], None, *shape[axis + 1 :]))] * n
    if sizes is None and isinstance(dim, int):
        if ctx.op.since_version >= 18 and ctx.attr("num_outputs") is not None:
            chunk = -(-dim // n)
            sizes = [chunk] * (n - 1) + [dim - chunk * (n - 1)]
        elif dim % n == 0:
            sizes = [dim // n] * n
    if sizes is not None and isinstance(dim, int) and sum(sizes) != dim:
        raise ctx.fail(f"split sizes {list(sizes)} do not add up to dimension {axis} ({dim})")
    result: list[ValueType | None] = []
    for i in range(n):
        size = sizes[i] if sizes is not None and i < len(sizes) else None
        result.append(Tensor(elem, shape[:axis] + (size,) + shape[axis + 1 :]))
    return result


def _slice_dim(dim: Dim, start: int, end: int, step: int) -> Dim:
    if not isinstance(dim, int):
        return None
    return len(range(*slice(start, end, step).indices(dim)))


def _slice(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    if shape is None:
        return [Tensor(elem, None)]
    rank = len(shape)
    if ctx.op.since_version < 10:
        starts, ends = ctx.attr("starts"), ctx.attr("ends")
        axes, steps = ctx.attr("axes"), None
    else:
        starts, ends = ctx.int_values(1), ctx.int_values(2)
        axes = ctx.int_values(3) if ctx.has_input(3) else None
        steps = ctx.int_values(4) if ctx.has_input(4) else None
        if ctx.has_input(3) and axes is None:
            return [Tensor(elem, (None,) * rank)]
    if starts is None or ends is None or (ctx.has_input(4) and steps is None):
        if axes is None:
            return [Tensor(elem, (None,) * rank)]
        touched = {normalize_axis(ctx, int(a), rank, "axes") for a in axes}
        return [Tensor(elem, tuple(None if i in touched else d for i, d in enumerate(shape)))]
    if axes is None:
        axes = list(range(len(starts)))
    if steps is None:
        steps = [1] * len(starts)
    out = list(shape)
    for start, end, axis, step in zip(starts, ends, axes, steps):
        if step == 0:
            raise ctx.fail("steps must not be 0")
        a = normalize_axis(ctx, int(axis), rank, "axes")
        out[a] = _slice_dim(shape[a], int(start), int(end), int(step))
    value = ctx.value(0)
    if value is not None and value.size <= 64:
        index = [slice(None)] * rank
        for start, end, axis, step in zip(starts, ends, axes, steps):
            index[normalize_axis(ctx, int(axis), rank)] = slice(int(start), int(end), int(step))
        ctx.set_value(0, value[tuple(index)])
    return [Tensor(elem, tuple(out))]


def _axes(ctx: InferenceContext, attr_until: int) -> list[int] | None:
    if ctx.op.since_version < attr_until:
        axes = ctx.attr("axes")
        return None if axes is None else [int(a) for a in axes]
    return ctx.int_values(1)


def _squeeze(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    axes = _axes(ctx, 13)
    if shape is None:
        return [Tensor(elem, None)]
    if axes is None:
        if ctx.has_input(1):
            return [Tensor(elem, None)]
        if any(not isinstance(d, int) for d in shape):
            return [Tensor(elem, None)]
        return [Tensor(elem, tuple(d for d in shape if d != 1))]
    norm = {normalize_axis(ctx, a, len(shape), "axes") for a in axes}
    for a in norm:
        if isinstance(shape[a], int) and shape[a] != 1:
            raise ctx.fail(f"cannot squeeze axis {a}: its dimension is {shape[a]}, not 1")
    value = ctx.value(0)
    if value is not None and value.size <= 64:
        ctx.set_value(0, np.squeeze(value, axis=tuple(sorted(norm))))
    return [Tensor(elem, tuple(d for i, d in enumerate(shape) if i not in norm))]


def _unsqueeze(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    axes = _axes(ctx, 13)
    if shape is None or axes is None:
        return [Tensor(elem, None)]
    rank = len(shape) + len(axes)
    norm = sorted(normalize_axis(ctx, a, rank, "axes") for a in axes)
    if len(set(norm)) != len(norm):
        raise ctx.fail(f"axes {axes} has repeated entries")
    dims = list(shape)
    for a in norm:
        dims.insert(a, 1)
    value = ctx.value(0)
    if value is not None and value.size <= 64:
        ctx.set_value(0, value.reshape(dims))
    return [Tensor(elem, tuple(dims))]


def _shape(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is None:
        return [Tensor(ElementType.INT64, (None,))]
    rank = len(shape)
    start = int(ctx.attr("start", 0))
    end = ctx.attr("end")
    start = min(max(start + rank if start < 0 else start, 0), rank)
    stop = rank if end is None else int(end)
    stop = min(max(stop + rank if stop < 0 else stop, 0), rank)
    dims = shape[start:stop]
    if all(isinstance(d, int) for d in dims):
        ctx.set_value(0, np.array(dims, dtype=np.int64))
    return [Tensor(ElementType.INT64, (max(stop - start, 0),))]


def _size(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is not None:
        total = dim_product(shape)
        if total is not None:
            ctx.set_value(0, np.array(total, dtype=np.int64))
    return [Tensor(ElementType.INT64, ())]


def _flatten(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is None:
        return [Tensor(ctx.elem(0), (None, None))]
    axis = int(ctx.attr("axis", 1))
    axis = axis + len(shape) if axis < 0 else axis
    if not 0 <= axis <= len(shape):
        raise ctx.fail(f"axis={ctx.attr('axis', 1)} is out of range for rank {len(shape)}")
    return [Tensor(ctx.elem(0), (dim_product(shape[:axis]), dim_product(shape[axis:])))]


def _expand(ctx: InferenceContext) -> list[ValueType | None]:
    from onnxcraft.infer.common import broadcast

    target = ctx.int_values(1)
    if target is None:
        return [Tensor(ctx.elem(0), None)]
    return [
        Tensor(ctx.elem(0), broadcast("Expand", ctx.shape(0), tuple(target), ("input", "shape")))
    ]


def register(rules: RuleRegistry) -> None:
    rules.add("Reshape", _reshape, since=ALL_VERSIONS)
    rules.add("Transpose", _transpose, since=ALL_VERSIONS)
    rules.add("Concat", _concat, since=ALL_VERSIONS)
    rules.add("Split", _split, since=ALL_VERSIONS)
    rules.add("Slice", _slice, since=ALL_VERSIONS)
    rules.add("Squeeze", _squeeze, since=ALL_VERSIONS)
    rules.add("Unsqueeze", _unsqueeze, since=ALL_VERSIONS)
    rules.add("Shape", _shape, since=ALL_VERSIONS)
    rules.add("Size", _size, since=ALL_VERSIONS)
    rules.add("Flatten", _flatten, since=ALL_VERSIONS)
    rules.add("Expand", _expand, since=ALL_VERSIONS)
