"""Rules for shape manipulation: Reshape, Transpose, Concat, Split, Slice, (Un)Squeeze, Shape,
Size, Flatten, Expand, Tile and Identity.

These operators also carry shape-like values (data propagation): ``Shape`` of a tensor with a
symbolic dim ``N`` gives a value whose entry is ``N``; Gather, Slice, Concat and (Un)Squeeze
move such entries around, and Reshape, Expand and Tile read them back as output dims.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.infer_api import (
    ALL_VERSIONS,
    VALUE_LIMIT,
    InferenceContext,
    RuleRegistry,
    SymbolicValue,
)
from onnxcraft.ops.infer_common import (
    broadcast,
    dim_product,
    dim_sum,
    entry_mul,
    normalize_axis,
    symbolic_product,
    tensor,
    unknown_dims,
)
from onnxcraft.ops.shape.shapes import ceil_split_sizes, slice_bounds, slice_indices
from onnxcraft.types import Dim, Shape, SparseTensor, Tensor, ValueType

__all__ = ["general_concat", "register", "slice_dim", "static_concat"]

# A Slice bound at least this large means "to the end" (exporters write INT64_MAX or INT32_MAX).
_TO_THE_END = 2**31 - 1
_INT64_MAX = 2**63 - 1  # the largest dim a type can hold


# -- Reshape --------------------------------------------------------------------------------------


def _reshape(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    target: Sequence[Dim] | None
    if ctx.op.since_version < 5:
        attr = ctx.attr("shape")
        target = None if attr is None else [int(d) for d in attr]
    else:
        target = ctx.dims_value(1)
    if target is None:
        length = ctx.shape(1)
        rank = length[0] if length is not None and len(length) == 1 else None
        return [Tensor(elem, unknown_dims(rank))]
    dims, unknown_at = _reshape_dims(ctx, shape, target)
    if unknown_at is not None:
        # An unknown target entry could be 0 (a copy) or any size: then -1 cannot be solved.
        if all(d is not None for d in target):
            dims[unknown_at] = _inferred_dim(ctx, shape, dims, unknown_at, target)
    elif shape is not None:
        _check_count(ctx, shape, dims, target)
    out = tuple(dims)
    _reshape_value(ctx, out)
    return [Tensor(elem, out)]


def _reshape_dims(
    ctx: InferenceContext, shape: Shape, target: Sequence[Dim]
) -> tuple[list[Dim], int | None]:
    """The output dims the target spells out, and the position of its -1 (if any)."""
    allow_zero = bool(ctx.attr("allowzero", 0))
    dims: list[Dim] = []
    unknown_at = None
    for i, d in enumerate(target):
        if d == 0 and not allow_zero:
            if shape is not None and i >= len(shape):
                raise ctx.fail(f"shape[{i}] = 0 copies a dim the input (rank {len(shape)}) lacks")
            dims.append(None if shape is None else shape[i])
        elif d == -1:
            if unknown_at is not None:
                raise ctx.fail(f"shape {list(target)} has more than one -1")
            unknown_at = i
            dims.append(None)
        elif type(d) is int and d < -1:
            raise ctx.fail(f"shape {list(target)} has an invalid dim {d}")
        else:
            dims.append(d)
    return dims, unknown_at


def _inferred_dim(
    ctx: InferenceContext, shape: Shape, dims: list[Dim], at: int, target: Sequence[Dim]
) -> Dim:
    """The dim a -1 stands for: the input's element count over the other output dims."""
    if shape is None or any(d is None for d in shape):
        return None
    others = [d for j, d in enumerate(dims) if j != at]
    if any(d is None for d in others):
        return None
    total, known = dim_product(shape), dim_product(others)
    if total is not None and known is not None:
        if known == 0 or total % known:
            raise ctx.fail(f"cannot reshape {list(shape)} ({total} elements) into {list(target)}")
        return total // known
    return _symbolic_quotient(shape, others)


def _symbolic_quotient(numerator: Sequence[Dim], denominator: Sequence[Dim]) -> Dim:
    """prod(numerator) / prod(denominator) when the symbols cancel to one symbol or an int."""
    top = Counter(d for d in numerator if isinstance(d, str))
    bottom = Counter(d for d in denominator if isinstance(d, str))
    if bottom - top:
        return None  # a symbol of the denominator is not in the numerator
    rest = top - bottom
    top_int = dim_product([d for d in numerator if isinstance(d, int)])
    bottom_int = dim_product([d for d in denominator if isinstance(d, int)])
    assert top_int is not None and bottom_int is not None
    if bottom_int == 0 or top_int % bottom_int:
        return None
    quotient = top_int // bottom_int
    if not rest:
        return quotient
    if quotient == 1 and sum(rest.values()) == 1:
        return next(iter(rest))
    return None


def _check_count(
    ctx: InferenceContext, shape: tuple[Dim, ...], dims: list[Dim], target: Sequence[Dim]
) -> None:
    total, count = dim_product(shape), dim_product(dims)
    if total is not None and count is not None and total != count:
        raise ctx.fail(f"cannot reshape {list(shape)} ({total} elements) into {list(target)}")


def _reshape_value(ctx: InferenceContext, out: tuple[Dim, ...]) -> None:
    """A shape-like value keeps its entries when it only gains or loses a unit axis."""
    v = ctx.input_values[0] if ctx.values_given else None
    if type(v) is not SymbolicValue:
        return  # values known in full are folded by the engine
    if out == ():
        ctx.set_dims_value(0, v.entries, scalar=True)
    elif len(out) == 1 and out[0] == len(v.entries):
        ctx.set_dims_value(0, v.entries)


# -- Transpose, Concat, Split ---------------------------------------------------------------------


def _transpose(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    perm = ctx.attr("perm")
    if shape is None:
        return [Tensor(ctx.elem(0), None if perm is None else (None,) * len(perm))]
    if perm is None:
        perm = list(range(len(shape)))[::-1]
    if sorted(int(p) for p in perm) != list(range(len(shape))):
        raise ctx.fail(f"perm {list(perm)} is not a permutation of the {len(shape)} axes")
    return [tensor(ctx.elem(0), tuple(shape[int(p)] for p in perm))]


_TENSOR_TYPES = (Tensor, SparseTensor)  # the input types ctx.tensor gives


def _concat(ctx: InferenceContext) -> list[ValueType | None]:
    count = len(ctx.input_types)
    # Each input as ctx.tensor gives it, read once without a call per input (Concat may
    # join many).
    tensors: list[Tensor | None] = [
        t if isinstance(t, _TENSOR_TYPES) else None  # type: ignore[misc]
        for t in ctx.input_types
    ]
    joined = static_concat(ctx, tensors)
    if joined is None:
        return [general_concat(ctx, tensors)]
    if ctx.values_given and len(joined.shape or ()) == 1 and ctx.is_integer(0):
        _concat_value(ctx, count)  # shape-like values; others are folded by the engine
    return [joined]


def static_concat(ctx: InferenceContext, tensors: Sequence[Tensor | None]) -> Tensor | None:
    """:func:`general_concat`'s answer in the common case: every input a tensor of one known
    element type and rank, the axis valid, its dims known ints and every other dim equal across
    the inputs. None in any other case (the general path answers, and words any error); never
    raises. DenseNet joins up to 32 inputs at every block.
    """
    if not tensors:
        return None
    first = tensors[0]
    if type(first) is not Tensor or first.elem_type is None or not first.shape:
        return None
    elem, shape = first.elem_type, first.shape
    rank = len(shape)
    try:
        axis = int(ctx.attr("axis", 1))
    except (TypeError, ValueError, OverflowError):
        return None
    if not -rank <= axis < rank:
        return None
    if axis < 0:
        axis += rank
    head, tail = shape[:axis], shape[axis + 1 :]
    total = 0
    for t in tensors:
        if type(t) is not Tensor or t.elem_type is not elem:
            return None
        s = t.shape
        if s is None or len(s) != rank:
            return None
        d = s[axis]
        if type(d) is not int or s[:axis] != head or s[axis + 1 :] != tail:
            return None
        total += d
    if total > _INT64_MAX:
        return None  # (the general path's type refuses it, in words)
    return tensor(elem, (*head, total, *tail))


def general_concat(ctx: InferenceContext, tensors: Sequence[Tensor | None]) -> Tensor:
    """Concat's output type for any inputs (``tensors``: ``ctx.tensor`` of each), every check
    made (and the value of a joined shape-like vector, when every input's is known)."""
    shapes = [None if t is None else t.shape for t in tensors]
    elems = {t.elem_type for t in tensors if t is not None and t.elem_type is not None}
    if len(elems) > 1:
        names = sorted(e.name.lower() for e in elems)
        raise ctx.fail(f"inputs must share one element type, got {', '.join(names)}")
    elem = elems.pop() if elems else None
    known = [s for s in shapes if s is not None]
    if not known:
        return Tensor(elem, None)
    rank = len(known[0])
    if any(len(s) != rank for s in known):
        raise ctx.fail(f"inputs have different ranks: {[list(s) for s in known]}")
    if rank == 0:
        raise ctx.fail("inputs must have rank >= 1 (scalars cannot be concatenated)")
    axis = normalize_axis(ctx, int(ctx.attr("axis", 1)), rank)
    if len(known) != len(shapes):
        return Tensor(elem, tuple(None if i == axis else known[0][i] for i in range(rank)))
    out: list[Dim] = []
    for i in range(rank):
        column = [s[i] for s in known]
        if i == axis:
            out.append(_dims_total(column))
            continue
        statics = {d for d in column if isinstance(d, int)}
        if len(statics) > 1:
            raise ctx.fail(f"inputs differ in dimension {i} (not the concat axis): {column}")
        out.append(statics.pop() if statics else (column[0] if len(set(column)) == 1 else None))
    if ctx.values_given and rank == 1 and ctx.is_integer(0):
        _concat_value(ctx, len(tensors))  # shape-like values; others are folded by the engine
    return Tensor(elem, tuple(out))


def _dims_total(dims: Sequence[Dim]) -> Dim:
    """The sum of dims: an int, or the one symbol when every other dim is 0."""
    total = dim_sum(dims)
    if total is not None:
        return total
    nonzero = [d for d in dims if d != 0]
    return nonzero[0] if len(nonzero) == 1 and isinstance(nonzero[0], str) else None


def _concat_value(ctx: InferenceContext, count: int) -> None:
    values = [ctx.value(i) for i in range(count)]
    if all(v is not None for v in values):
        arrays = [v for v in values if v is not None]
        if sum(v.size for v in arrays) <= VALUE_LIMIT:
            ctx.set_value(0, np.concatenate(arrays))
        return
    parts = [ctx.dims_value(i) for i in range(count)]
    entries: list[Dim] = []
    for part in parts:
        if part is None:
            return
        entries.extend(part)
    ctx.set_dims_value(0, entries, elem=ctx.elem(0))


def _split(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    n = ctx.num_outputs
    if shape is None:
        return [Tensor(elem, None)] * n
    axis = normalize_axis(ctx, int(ctx.attr("axis", 0)), len(shape))
    sizes: Sequence[Dim] | None
    if ctx.op.since_version < 13 and not ctx.has_input(1):
        attr = ctx.attr("split")
        sizes = None if attr is None else [int(s) for s in attr]
    else:
        sizes = ctx.dims_value(1) if ctx.has_input(1) else None
    dim = shape[axis]
    if sizes is None and ctx.has_input(1):
        # The sizes come from a tensor whose value is unknown here: the axis is unknown.
        return [Tensor(elem, (*shape[:axis], None, *shape[axis + 1 :]))] * n
    if sizes is None:
        sizes = _even_split(ctx, dim, n, axis)
    if sizes is not None:
        if len(sizes) != n:
            raise ctx.fail(f"split has {len(sizes)} sizes for {n} outputs")
        total = dim_sum(sizes)
        if isinstance(dim, int) and total is not None and total != dim:
            raise ctx.fail(f"split sizes {list(sizes)} do not add up to dimension {axis} ({dim})")
    result: list[ValueType | None] = []
    for i in range(n):
        size = sizes[i] if sizes is not None else None
        result.append(Tensor(elem, shape[:axis] + (size,) + shape[axis + 1 :]))
    if ctx.values_given and len(shape) == 1 and sizes is not None and ctx.is_integer(0):
        _split_value(ctx, sizes)
    return result


def _split_value(ctx: InferenceContext, sizes: Sequence[Dim]) -> None:
    """Each part of a 1-D shape-like value split at known sizes."""
    entries = ctx.dims_value(0)
    if entries is None or not all(type(s) is int for s in sizes):
        return
    start = 0
    for i, size in enumerate(sizes):
        assert isinstance(size, int)
        ctx.set_dims_value(i, entries[start : start + size], elem=ctx.elem(0))
        start += size


def _even_split(ctx: InferenceContext, dim: Dim, n: int, axis: int) -> Sequence[Dim] | None:
    if not isinstance(dim, int):
        return None
    if ctx.op.since_version >= 18:
        if ctx.attr("num_outputs") is None:
            return None
        sizes = ceil_split_sizes(dim, n)  # the last output takes what is left
        if sizes is None:
            raise ctx.fail(f"dimension {axis} ({dim}) cannot be split into {n} outputs")
        return sizes
    if dim % n:
        raise ctx.fail(f"dimension {axis} ({dim}) cannot be split evenly into {n} outputs")
    return [dim // n] * n


# -- Slice ----------------------------------------------------------------------------------------


def slice_dim(dim: Dim, start: Dim, end: Dim, step: int) -> Dim:
    """The length of ``dim[start:end:step]`` (ONNX clamping), or None when unknown."""
    if type(dim) is int and type(start) is int and type(end) is int:
        return len(slice_indices(dim, start, end, step))
    if dim is None or step != 1:
        return None
    if start == 0 and (end == dim or (type(end) is int and end >= _TO_THE_END)):
        return dim
    if start is not None and start == end:
        return 0
    return None


def _slice_arguments(
    ctx: InferenceContext,
) -> tuple[Sequence[Dim] | None, Sequence[Dim] | None, Sequence[Dim] | None, Sequence[Dim] | None]:
    """starts, ends, axes, steps (None where unknown; axes/steps None also when absent)."""
    if ctx.op.since_version < 10:
        return ctx.attr("starts"), ctx.attr("ends"), ctx.attr("axes"), None
    starts, ends = ctx.dims_value(1), ctx.dims_value(2)
    axes = ctx.dims_value(3) if ctx.has_input(3) else None
    steps = ctx.dims_value(4) if ctx.has_input(4) else None
    return starts, ends, axes, steps


def _slice(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    if shape is None:
        return [Tensor(elem, None)]
    rank = len(shape)
    starts, ends, axes, steps = _slice_arguments(ctx)
    axes_unknown = ctx.op.since_version >= 10 and ctx.has_input(3) and axes is None
    steps_unknown = ctx.op.since_version >= 10 and ctx.has_input(4) and steps is None
    axis_ints = None if axes is None else [a for a in axes if type(a) is int]
    if axes_unknown or (axes is not None and len(axis_ints or ()) != len(axes)):
        return [Tensor(elem, (None,) * rank)]
    norm_axes = (
        None if axis_ints is None else [normalize_axis(ctx, a, rank, "axes") for a in axis_ints]
    )
    if starts is None or ends is None or steps_unknown:
        if norm_axes is None:
            return [Tensor(elem, (None,) * rank)]
        return [Tensor(elem, tuple(None if i in norm_axes else d for i, d in enumerate(shape)))]
    if len(starts) != len(ends):
        raise ctx.fail(f"starts ({len(starts)} entries) and ends ({len(ends)}) differ in length")
    if norm_axes is None:
        norm_axes = list(range(len(starts)))
    if len(set(norm_axes)) != len(norm_axes):
        raise ctx.fail(f"axes {list(axes or [])} has repeated entries")
    step_list: Sequence[Dim] = [1] * len(starts) if steps is None else steps
    if len(norm_axes) != len(starts) or len(step_list) != len(starts):
        raise ctx.fail("starts, ends, axes and steps must have the same length")
    out = list(shape)
    for start, end, axis, step in zip(starts, ends, norm_axes, step_list):
        if step == 0:
            raise ctx.fail("steps must not be 0")
        out[axis] = None if type(step) is not int else slice_dim(shape[axis], start, end, step)
    if ctx.values_given and rank == 1 and ctx.is_integer(0):
        _slice_value(ctx, starts, ends, step_list)
    return [Tensor(elem, tuple(out))]


def _slice_value(
    ctx: InferenceContext, starts: Sequence[Dim], ends: Sequence[Dim], steps: Sequence[Dim]
) -> None:
    """Slicing a 1-D shape-like value with known bounds keeps the chosen entries."""
    entries = ctx.dims_value(0)
    bounds = (starts[0], ends[0], steps[0]) if len(starts) == 1 else None
    if entries is None or bounds is None or not all(type(b) is int for b in bounds):
        return
    start, end, step = (b for b in bounds if isinstance(b, int))
    taken = list(slice_indices(len(entries), start, end, step))
    value = ctx.value(0)
    if value is not None:
        ctx.set_value(0, value[taken])
    else:
        ctx.set_dims_value(0, [entries[i] for i in taken], elem=ctx.elem(0))


# -- Squeeze, Unsqueeze ---------------------------------------------------------------------------


def _axes(ctx: InferenceContext, attr_until: int) -> list[int] | None:
    """The axes attribute (before ``attr_until``) or input; None when absent or unknown."""
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
        if ctx.has_input(1) or any(not isinstance(d, int) for d in shape):
            return [Tensor(elem, None)]  # which axes go is not known
        out = tuple(d for d in shape if d != 1)
    else:
        norm = {normalize_axis(ctx, a, len(shape), "axes") for a in axes}
        for a in norm:
            if isinstance(shape[a], int) and shape[a] != 1:
                raise ctx.fail(f"cannot squeeze axis {a}: its dimension is {shape[a]}, not 1")
        out = tuple(d for i, d in enumerate(shape) if i not in norm)
    if ctx.values_given and ctx.is_integer(0):
        _unit_axis_value(ctx, out)
    return [Tensor(elem, out)]


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
    out = tuple(dims)
    if ctx.values_given and ctx.is_integer(0):
        _unit_axis_value(ctx, out)
    return [Tensor(elem, out)]


def _unit_axis_value(ctx: InferenceContext, out: tuple[Dim, ...]) -> None:
    """(Un)squeezing unit axes moves no element: the value is the input's, reshaped."""
    value = ctx.value(0)
    if value is not None:
        if all(type(d) is int for d in out):
            ctx.set_value(0, value.reshape(out))
        return
    entries = ctx.dims_value(0)
    if entries is not None and len(out) <= 1 and dim_product(out) in (None, len(entries)):
        ctx.set_dims_value(0, entries, scalar=not out, elem=ctx.elem(0))


# -- Shape, Size, Flatten -------------------------------------------------------------------------


def _shape(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is None:
        return [Tensor(ElementType.INT64, (None,))]
    rank = len(shape)
    end = ctx.attr("end")
    start, stop = slice_bounds(
        rank, int(ctx.attr("start", 0)), rank if end is None else int(end), 1
    )
    dims = shape[start:stop]
    ctx.set_dims_value(0, dims)
    return [tensor(ElementType.INT64, (max(stop - start, 0),))]


def _size(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is not None:
        ctx.set_dims_value(0, [symbolic_product(shape)], scalar=True)
    return [tensor(ElementType.INT64, ())]


def _flatten(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is None:
        return [Tensor(ctx.elem(0), (None, None))]
    axis = int(ctx.attr("axis", 1))
    if axis < 0 and ctx.opset < 11:  # Flatten-1 and -9 take axis in [0, rank] only
        raise ctx.fail(f"axis={axis} is negative; Flatten before version 11 takes [0, rank]")
    axis = axis + len(shape) if axis < 0 else axis
    if not 0 <= axis <= len(shape):
        raise ctx.fail(f"axis={ctx.attr('axis', 1)} is out of range for rank {len(shape)}")
    return [Tensor(ctx.elem(0), (symbolic_product(shape[:axis]), symbolic_product(shape[axis:])))]


# -- Expand, Tile, Identity -----------------------------------------------------------------------


def _expand(ctx: InferenceContext) -> list[ValueType | None]:
    target = ctx.dims_value(1)
    if target is None:
        length = ctx.shape(1)
        shape = ctx.shape(0)
        if length is None or len(length) != 1 or not isinstance(length[0], int):
            return [Tensor(ctx.elem(0), None)]
        if shape is None or length[0] > VALUE_LIMIT:
            return [Tensor(ctx.elem(0), unknown_dims(length[0]))]
        # Unknown target entries still broadcast with the input's dims: a dim other than 1
        # survives whatever the entry is (or the model is invalid).
        target = (None,) * length[0]
    elif any(type(d) is int and d < 0 for d in target):
        raise ctx.fail(f"shape {list(target)} has negative dims")
    return [Tensor(ctx.elem(0), broadcast("Expand", ctx.shape(0), target, ("input", "shape")))]


def _tile(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    if ctx.op.since_version < 6:
        return [Tensor(elem, _tile_1(ctx, shape))]
    repeats = ctx.dims_value(1)
    if shape is None:
        count = ctx.shape(1)
        rank = count[0] if count is not None and len(count) == 1 else None
        return [Tensor(elem, unknown_dims(rank))]
    if repeats is None:
        return [Tensor(elem, (None,) * len(shape))]
    if len(repeats) != len(shape):
        raise ctx.fail(
            f"repeats has {len(repeats)} entries but the input has rank {len(shape)}: "
            f"one repeat count per axis is needed"
        )
    if any(type(r) is int and r < 0 for r in repeats):
        raise ctx.fail(f"repeats {list(repeats)} must not be negative")
    return [Tensor(elem, tuple(entry_mul(d, r) for d, r in zip(shape, repeats)))]


def _tile_1(ctx: InferenceContext, shape: Shape) -> Shape:
    """Tile-1: the input repeated ``tiles`` times along ``axis`` (both scalar inputs)."""
    if shape is None:
        return None
    tiles, axis = ctx.dims_value(1), ctx.int_values(2)
    if axis is None or len(axis) != 1:
        return (None,) * len(shape)
    a = normalize_axis(ctx, axis[0], len(shape))
    count = tiles[0] if tiles is not None and len(tiles) == 1 else None
    return shape[:a] + (entry_mul(shape[a], count),) + shape[a + 1 :]


def _identity(ctx: InferenceContext) -> list[ValueType | None]:
    if ctx.values_given and ctx.input_values[0] is not None:
        ctx.output_values[0] = ctx.input_values[0]  # passed on as is, decoded only if read
    return [ctx.input_types[0] if ctx.input_types else None]


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
    rules.add("Tile", _tile, since=ALL_VERSIONS)
    rules.add("Identity", _identity, since=ALL_VERSIONS)
