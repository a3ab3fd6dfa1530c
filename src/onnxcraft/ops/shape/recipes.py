"""Recipes of the shape family: strategies drawing valid nodes of Identity, Reshape, Flatten,
Squeeze, Unsqueeze, Transpose, Expand, Tile, Concat, Split, Slice, Shape, Size, every version."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.ops import strategies as ocst
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe
from onnxcraft.types import Tensor

__all__ = ["register"]


@recipe
def identity(n: NodeDraw) -> NodeCase:
    value_type = n.draw(ocst.value_types(n.param(0), spec=n.spec))
    value = n.draw(ocst.values(value_type))
    if isinstance(value_type, Tensor):
        return n.case([n.given(value)])
    return n.case([Input(value, value_type)])


def _regrouped(n: NodeDraw, shape: tuple[int, ...]) -> list[int]:
    """A shape of the same size: the dims permuted, neighbours merged, 1s inserted."""
    order: list[int] = n.draw(st.permutations(list(shape)))
    result: list[int] = []
    for dim in order:
        if result and n.flag():
            result[-1] *= dim
        else:
            result.append(dim)
    for _ in range(n.integer(0, 1)):
        result.insert(n.integer(0, len(result)), 1)
    return result


@recipe
def reshape(n: NodeDraw) -> NodeCase:
    shape = n.shape()
    x = n.tensor(0, shape)
    allowzero = n.integer(0, 1) if n.has("allowzero") else 0
    size = math.prod(shape)
    target = _regrouped(n, shape) if size or allowzero else list(shape)
    if size and target and n.flag():
        target[n.integer(0, len(target) - 1)] = -1  # inferred from the size
    if not allowzero:
        for i in range(min(len(target), len(shape))):
            if target[i] == shape[i] and n.flag():
                target[i] = 0  # copies the input's dim
    if n.version < 5:
        return n.case([x], {"shape": target})
    return n.case([x, n.ints(target)], n.attrs(allowzero=allowzero))


@recipe
def flatten(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=1 if n.version < 11 else 0)
    low = 0 if n.version < 11 else -len(shape)
    return n.case([n.tensor(0, shape)], {"axis": n.integer(low, len(shape))})


@recipe
def squeeze(n: NodeDraw) -> NodeCase:
    shape = n.shape(max_side=2)
    ones = [i for i, d in enumerate(shape) if d == 1]
    chosen = [i - len(shape) if n.flag() else i for i in ones if n.flag()]
    x = n.tensor(0, shape)
    # None: squeeze every 1; an empty list is not drawn, the standard does not say what it means
    axes = chosen if chosen else None
    if n.version < 13:
        return n.case([x], {} if axes is None else {"axes": axes})
    return n.case([x, None if axes is None else n.ints(axes)])


@recipe
def unsqueeze(n: NodeDraw) -> NodeCase:
    shape = n.shape(max_dims=3)
    out_rank = len(shape) + n.integer(1, 2)
    axes = n.axes(out_rank, min_size=out_rank - len(shape), max_size=out_rank - len(shape))
    if n.version < 11:
        axes = [a % out_rank for a in axes]  # opset 1 takes no negative axes
    x = n.tensor(0, shape)
    if n.version < 13:
        return n.case([x], {"axes": axes})
    return n.case([x, n.ints(axes)])


@recipe
def transpose(n: NodeDraw) -> NodeCase:
    shape = n.shape()
    perm = n.draw(st.permutations(list(range(len(shape)))))
    return n.case([n.tensor(0, shape)], {"perm": list(perm)} if n.flag() else {})


@recipe
def expand(n: NodeDraw) -> NodeCase:
    data_shape, target = n.draw(ocst.broadcastable_shapes(2)).input_shapes
    return n.case([n.tensor(0, data_shape), n.ints(target)])


@recipe
def tile(n: NodeDraw) -> NodeCase:
    shape = n.shape(max_side=3)
    x = n.tensor(0, shape)
    if n.version == 1:
        elem = n.elem("T")
        axis = n.integer(0, len(shape) - 1) if shape else None
        if axis is None:
            shape = (2,)
            x, axis = n.tensor(0, shape), 0
        return n.case([x, n.scalar(n.integer(1, 3), elem), n.scalar(axis, elem)])
    repeats = [n.integer(0, 3) for _ in shape]
    return n.case([x, n.ints(repeats)])


@recipe
def concat(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=1)
    axis = n.axis(len(shape)) if n.version >= 11 else n.integer(0, len(shape) - 1)
    count = n.integer(1, 3)
    inputs = []
    for i in range(count):
        part = list(shape)
        part[axis] = n.integer(0, 3)
        inputs.append(n.tensor(i, tuple(part)))
    if n.version == 1 and axis == 1 and n.flag():
        return n.case(inputs)  # the default axis of opset 1
    return n.case(inputs, {"axis": axis})


@recipe
def split(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=1)
    axis = n.axis(len(shape)) if n.version >= 11 else n.integer(0, len(shape) - 1)
    dim = shape[axis]
    x = n.tensor(0, shape)
    attrs: dict[str, Any] = {"axis": axis}
    mode = n.choice(["sizes", "equal", "num_outputs"] if n.version >= 18 else ["sizes", "equal"])
    if mode == "num_outputs" and dim >= 1:
        attrs["num_outputs"] = n.integer(1, dim)
        return n.case([x], attrs, outputs=attrs["num_outputs"])
    if mode == "equal" and n.version < 18:
        divisors = [d for d in range(1, 4) if dim % d == 0] if dim else [1]
        return n.case([x], attrs, outputs=n.choice(divisors))
    sizes = _partition(n, dim)
    if n.version in (2, 11) or (n.version == 1 and n.flag()):
        return n.case([x], {**attrs, "split": sizes}, outputs=len(sizes))
    elem = ElementType.INT64 if n.version >= 13 else n.elem("T")
    return n.case(
        [x, n.given(np.asarray(sizes, dtype=numpy_dtype(elem)))], attrs, outputs=len(sizes)
    )


def _partition(n: NodeDraw, total: int) -> list[int]:
    """1-3 non-negative sizes adding up to ``total``."""
    cuts = sorted(n.integer(0, total) for _ in range(n.integer(0, 2)))
    bounds = [0, *cuts, total]
    return [b - a for a, b in itertools.pairwise(bounds)]


def _slice_bounds(n: NodeDraw, dim: int, steps: bool, elem: ElementType) -> tuple[int, int, int]:
    big = int(np.iinfo(numpy_dtype(elem)).max)  # "to the end", as exporters write INT_MAX
    wide = st.integers(-dim - 2, dim + 2) | st.sampled_from([-big, big])
    step = n.choice([-2, -1, 1, 2]) if steps else 1
    return n.draw(wide), n.draw(wide), step


@recipe
def slice_(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=1)
    axes = n.axes(len(shape), min_size=1)
    if n.version < 10:
        axes = [a % len(shape) for a in axes]  # opset 1 takes no negative axes
    x = n.tensor(0, shape)
    elem = n.elem("Tind") if n.version >= 10 else ElementType.INT64
    bounds = [_slice_bounds(n, shape[a], n.version >= 10, elem) for a in axes]
    starts, ends, steps = ([b[i] for b in bounds] for i in range(3))
    give_axes = n.flag() or [a % len(shape) for a in axes] != list(range(len(axes)))
    if n.version < 10:
        attrs = {"starts": starts, "ends": ends}
        return n.case([x], {**attrs, "axes": axes} if give_axes else attrs)
    as_input = [n.ints(v, elem=elem) for v in (starts, ends)]
    axes_in = n.ints(axes, elem=elem) if give_axes or n.flag() else None
    steps_in = n.ints(steps, elem=elem) if any(s != 1 for s in steps) or n.flag() else None
    if steps_in is not None and axes_in is None:
        axes_in = n.ints(axes, elem=elem)
    return n.case([x, *as_input, axes_in, steps_in])


@recipe
def shape_of(n: NodeDraw) -> NodeCase:
    shape = n.shape()
    bound = st.integers(-len(shape) - 1, len(shape) + 1)
    return n.case([n.tensor(0, shape)], n.attrs(start=bound, end=st.none() | bound))


@recipe
def size_of(n: NodeDraw) -> NodeCase:
    return n.case([n.tensor(0, n.shape())])


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("Identity", identity)
    recipes.add("Reshape", reshape)
    recipes.add("Flatten", flatten)
    recipes.add("Squeeze", squeeze)
    recipes.add("Unsqueeze", unsqueeze)
    recipes.add("Transpose", transpose)
    recipes.add("Expand", expand)
    recipes.add("Tile", tile)
    recipes.add("Concat", concat)
    recipes.add("Split", split)
    recipes.add("Slice", slice_)
    recipes.add("Shape", shape_of)
    recipes.add("Size", size_of)
