"""Rules for Pad, Trilu, EyeLike, OneHot, Compress, NonZero, Unique, CumProd, ReverseSequence,
DepthToSpace/SpaceToDepth, Einsum and BitCast.

The data-dependent operators (Compress, NonZero, Unique) know their output size only when the
input values are known; otherwise that one dim is unknown.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import (
    broadcast,
    element_type_attr,
    entry_add,
    entry_mul,
    normalize_axis,
)
from onnxcraft.ops.tensor_ops.shapes import pads_by_axis
from onnxcraft.types import Dim, Shape, Tensor, ValueType

__all__ = ["register"]

_PAD_MODES = ("constant", "reflect", "edge", "wrap")


def _same(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ctx.elem(0), ctx.shape(0))]


def _trilu(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is not None and len(shape) < 2:
        raise ctx.fail(f"the input must have rank >= 2, got shape {list(shape)}")
    return [Tensor(ctx.elem(0), shape)]


def _bit_cast(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(element_type_attr(ctx, "to"), ctx.shape(0))]


def _eye_like(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is not None and len(shape) != 2:
        raise ctx.fail(f"the input must be 2-D, got shape {list(shape)}")
    dtype = element_type_attr(ctx, "dtype")
    return [Tensor(ctx.elem(0) if dtype is None else dtype, shape)]


def _one_hot(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    values = ctx.shape(2)
    # a symbolic or unknown length may be 2; only a rank or a known length other than 2 is wrong
    if values is not None and (len(values) != 1 or (isinstance(values[0], int) and values[0] != 2)):
        raise ctx.fail(f"input 'values' must hold two elements [off, on], got shape {list(values)}")
    depth = ctx.dims_value(1)
    size: Dim = depth[0] if depth is not None and len(depth) == 1 else None
    if size is None and ctx.value(1) is not None:
        size = _float_depth(ctx, ctx.value(1))
    if type(size) is int and size < 0:
        raise ctx.fail(f"input 'depth' must not be negative, got {size}")
    if shape is None:
        return [Tensor(ctx.elem(2), None)]
    rank = len(shape) + 1
    axis = normalize_axis(ctx, int(ctx.attr("axis", -1)), rank)
    return [Tensor(ctx.elem(2), (*shape[:axis], size, *shape[axis:]))]


def _float_depth(ctx: InferenceContext, value: np.ndarray | None) -> Dim:
    """A depth given as a float tensor counts as its integer part (the standard casts it)."""
    if value is None or value.size != 1 or value.dtype.kind != "f":
        return None
    depth = float(value.reshape(-1)[0])
    if not np.isfinite(depth):
        raise ctx.fail(f"input 'depth' must be a finite number, got {depth}")
    return int(depth)


# -- Pad ------------------------------------------------------------------------------------------


def _pad(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    mode = ctx.attr("mode", "constant")
    if mode not in _PAD_MODES:
        raise ctx.fail(f"mode must be one of {', '.join(_PAD_MODES)}, got {mode!r}")
    if ctx.op.since_version < 11:
        attr = ctx.attr("paddings" if ctx.op.since_version < 2 else "pads")
        pads: Sequence[Dim] | None = None if attr is None else [int(p) for p in attr]
        axes: Sequence[Dim] | None = None
    else:
        pads = ctx.dims_value(1)
        axes = ctx.dims_value(3) if ctx.has_input(3) else None
        if ctx.has_input(3) and axes is None:
            return [Tensor(elem, None if shape is None else (None,) * len(shape))]
    if shape is None:
        return [Tensor(elem, None)]
    rank = len(shape)
    given_axes = list(range(rank)) if axes is None else [a for a in axes if type(a) is int]
    if axes is not None and len(given_axes) != len(axes):
        return [Tensor(elem, (None,) * rank)]  # an axis is symbolic: which one is unknown
    axis_list = [normalize_axis(ctx, a, rank, "axes") for a in given_axes]
    if len(set(axis_list)) != len(axis_list):
        raise ctx.fail(f"axes {list(axes or [])} has repeated entries")
    if pads is None:
        touched = set(axis_list)
        return [Tensor(elem, tuple(None if i in touched else d for i, d in enumerate(shape)))]
    if len(pads) != 2 * len(axis_list):
        raise ctx.fail(
            f"pads has {len(pads)} entries, expected {2 * len(axis_list)} (a begin and an end "
            f"per padded axis of the input of shape {list(shape)})"
        )
    return [Tensor(elem, _padded(ctx, shape, axis_list, pads))]


def _padded(
    ctx: InferenceContext, shape: tuple[Dim, ...], axes: list[int], pads: Sequence[Dim]
) -> Shape:
    out = list(shape)
    for axis, (begin, end) in pads_by_axis(pads, axes).items():
        dim = entry_add(entry_add(shape[axis], begin), end)
        if type(dim) is int and dim < 0:
            raise ctx.fail(
                f"pads {list(pads)} remove more than dimension {axis} ({shape[axis]}) holds"
            )
        out[axis] = dim
    return tuple(out)


# -- data-dependent sizes -------------------------------------------------------------------------


def _compress(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    condition = ctx.shape(1)
    if condition is not None and len(condition) != 1:
        raise ctx.fail(f"condition must be 1-D, got shape {list(condition)}")
    axis_attr = ctx.attr("axis")
    if axis_attr is None:
        size = None if shape is None else _total(shape)
        return [Tensor(elem, (_selected(ctx, size),))]
    if shape is None:
        return [Tensor(elem, None)]
    axis = normalize_axis(ctx, int(axis_attr), len(shape))
    kept = _selected(ctx, shape[axis])
    return [Tensor(elem, (*shape[:axis], kept, *shape[axis + 1 :]))]


def _total(shape: tuple[Dim, ...]) -> Dim:
    total = 1
    for d in shape:
        if type(d) is not int:
            return None
        total *= d
    return total


def _selected(ctx: InferenceContext, length: Dim) -> Dim:
    """How many slices a known condition keeps (entries past ``length`` are ignored)."""
    condition = ctx.value(1)
    if condition is None or type(length) is not int:
        return None
    flags = condition.reshape(-1)[:length].astype(bool)
    return int(np.count_nonzero(flags))


def _non_zero(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    value = ctx.value(0)
    count: Dim = None
    if value is not None and value.dtype.names is None and value.ndim > 0:
        count = int(np.count_nonzero(value))
    rank = None if shape is None else len(shape)
    return [Tensor(ElementType.INT64, (rank, count if rank else None))]


def _unique(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    axis_attr = ctx.attr("axis")
    axis = None
    if axis_attr is not None and shape is not None:
        axis = normalize_axis(ctx, int(axis_attr), len(shape))
    found = _unique_count(ctx, axis)
    if shape is None:
        y: Shape = None if axis_attr is not None else (found,)
        inverse: Dim = None
    elif axis is None:
        y, inverse = (found,), _total(shape)
    else:
        y, inverse = (*shape[:axis], found, *shape[axis + 1 :]), shape[axis]
    index_type = ElementType.INT64
    outputs: list[ValueType | None] = [
        Tensor(elem, y),
        Tensor(index_type, (found,)),
        Tensor(index_type, (inverse,)),
        Tensor(index_type, (found,)),
    ]
    return outputs[: ctx.num_outputs]


def _unique_count(ctx: InferenceContext, axis: int | None) -> Dim:
    """The number of unique values (or slices) of a known input."""
    value = ctx.value(0)
    if value is None or value.dtype.names is not None or value.dtype == object:
        return None
    if value.dtype.kind in "fc" and np.isnan(value).any():
        return None  # whether NaNs count as one value differs between implementations
    if axis is None:
        return int(np.unique(value.reshape(-1)).size)
    return int(np.unique(value, axis=axis).shape[axis])


# -- DepthToSpace, SpaceToDepth -------------------------------------------------------------------


def _block_input(ctx: InferenceContext) -> tuple[tuple[Dim, ...] | None, int]:
    shape = ctx.shape(0)
    block = int(ctx.attr("blocksize"))
    if block <= 0:
        raise ctx.fail(f"blocksize must be positive, got {block}")
    if shape is not None and len(shape) != 4:
        raise ctx.fail(f"the input must be 4-D [N, C, H, W], got shape {list(shape)}")
    return shape, block


def _depth_to_space(ctx: InferenceContext) -> list[ValueType | None]:
    shape, block = _block_input(ctx)
    if shape is None:
        return [Tensor(ctx.elem(0), (None,) * 4)]
    n, c, h, w = shape
    area = block * block
    if type(c) is int and c % area:
        raise ctx.fail(f"channels ({c}) must be divisible by blocksize^2 ({area})")
    depth = c // area if type(c) is int else None
    return [Tensor(ctx.elem(0), (n, depth, entry_mul(h, block), entry_mul(w, block)))]


def _space_to_depth(ctx: InferenceContext) -> list[ValueType | None]:
    shape, block = _block_input(ctx)
    if shape is None:
        return [Tensor(ctx.elem(0), (None,) * 4)]
    n, c, h, w = shape
    for name, dim in (("height", h), ("width", w)):
        if type(dim) is int and dim % block:
            raise ctx.fail(f"{name} ({dim}) must be divisible by blocksize ({block})")
    spatial = tuple(d // block if type(d) is int else (d if block == 1 else None) for d in (h, w))
    return [Tensor(ctx.elem(0), (n, entry_mul(c, block * block), *spatial))]


# -- Einsum ---------------------------------------------------------------------------------------


def _einsum(ctx: InferenceContext) -> list[ValueType | None]:
    equation = str(ctx.attr("equation", "")).replace(" ", "")
    count = len(ctx.input_types)
    shapes = [ctx.shape(i) for i in range(count)]
    elem = ctx.elem(0)
    terms_text, _, output = equation.partition("->")
    terms = terms_text.split(",")
    if len(terms) != count:
        raise ctx.fail(f"equation {equation!r} has {len(terms)} terms for {count} inputs")
    if any(s is None for s in shapes):
        if "->" in equation and "..." not in equation:
            return [Tensor(elem, (None,) * len(output))]
        return [Tensor(elem, None)]
    sizes: dict[str, Dim] = {}
    ellipsis: tuple[Dim, ...] = ()
    for term, shape in zip(terms, shapes):
        assert shape is not None
        ellipsis = _einsum_term(ctx, term, shape, sizes, ellipsis)
    if "->" not in equation:
        letters = "".join(terms).replace("...", "")
        output = ("..." if "..." in terms_text else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1)
        )
    result: list[Dim] = []
    head, dots, tail = output.partition("...")
    for letter in head:
        result.append(_einsum_size(ctx, sizes, letter))
    if dots:
        result.extend(ellipsis)
    for letter in tail:
        result.append(_einsum_size(ctx, sizes, letter))
    return [Tensor(elem, tuple(result))]


def _einsum_size(ctx: InferenceContext, sizes: dict[str, Dim], letter: str) -> Dim:
    if letter not in sizes:
        raise ctx.fail(f"output letter {letter!r} does not appear in any input term")
    return sizes[letter]


def _einsum_term(
    ctx: InferenceContext,
    term: str,
    shape: tuple[Dim, ...],
    sizes: dict[str, Dim],
    ellipsis: tuple[Dim, ...],
) -> tuple[Dim, ...]:
    """Record the sizes one input term gives its letters; returns the broadcast '...' dims."""
    head, dots, tail = term.partition("...")
    letters = len(head) + len(tail)
    if (not dots and letters != len(shape)) or (dots and letters > len(shape)):
        raise ctx.fail(f"term {term!r} has {letters} letters but the input has rank {len(shape)}")
    labelled = list(zip(head, shape[: len(head)]))
    labelled += list(zip(tail, shape[len(shape) - len(tail) :])) if tail else []
    for letter, dim in labelled:
        sizes[letter] = _einsum_merge(ctx, letter, sizes.get(letter, 1), dim)
    if not dots:
        return ellipsis
    middle = shape[len(head) : len(shape) - len(tail)]
    merged = broadcast("Einsum", ellipsis, middle, ("'...' dims", f"term {term!r}"))
    assert merged is not None
    return merged


def _einsum_merge(ctx: InferenceContext, letter: str, known: Dim, dim: Dim) -> Dim:
    if known == 1:
        return dim
    if dim in (1, known):
        return known
    if type(known) is int and type(dim) is int:
        raise ctx.fail(f"letter {letter!r} stands for dims {known} and {dim}")
    return known if type(known) is int else (dim if type(dim) is int else None)


def register(rules: RuleRegistry) -> None:
    for name in ("CumProd", "ReverseSequence"):
        rules.add(name, _same, since=ALL_VERSIONS)
    rules.add("Trilu", _trilu, since=ALL_VERSIONS)
    rules.add("BitCast", _bit_cast, since=ALL_VERSIONS)
    rules.add("EyeLike", _eye_like, since=ALL_VERSIONS)
    rules.add("OneHot", _one_hot, since=ALL_VERSIONS)
    rules.add("Einsum", _einsum, since=ALL_VERSIONS)
    rules.add("Pad", _pad, since=ALL_VERSIONS)
    rules.add("Compress", _compress, since=ALL_VERSIONS)
    rules.add("NonZero", _non_zero, since=ALL_VERSIONS)
    rules.add("Unique", _unique, since=ALL_VERSIONS)
    rules.add("DepthToSpace", _depth_to_space, since=ALL_VERSIONS)
    rules.add("SpaceToDepth", _space_to_depth, since=ALL_VERSIONS)
