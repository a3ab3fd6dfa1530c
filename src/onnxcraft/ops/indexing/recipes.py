"""Recipes of the indexing family: strategies drawing valid nodes of Gather, GatherElements,
GatherND, Scatter, ScatterElements, ScatterND, every version."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import shape_with_nonempty_axis

__all__ = ["register"]

_REDUCTIONS = {16: ["none", "add", "mul"], 18: ["none", "add", "mul", "max", "min"]}


def _reduction_attrs(n: NodeDraw) -> dict[str, object]:
    """A `reduction` valid for the data's type: strings can be concatenated (add), not
    multiplied, compared or otherwise reduced."""
    reductions = _REDUCTIONS.get(max((v for v in _REDUCTIONS if v <= n.version), default=0))
    if reductions and n.elem("T") == ElementType.STRING:
        reductions = ["none", "add"]
    return n.attrs(reduction=st.sampled_from(reductions) if reductions else None)


def _indices(
    n: NodeDraw,
    shape: tuple[int, ...],
    dim: int,
    *,
    negative: bool = True,
    elem: ElementType | None = None,
) -> Input:
    """An index tensor of ``shape`` addressing an axis of size ``dim`` (``dim >= 1``)."""
    low = -dim if negative else 0
    elem = elem or n.elem(n.param(1))
    values = n.draw(
        st.lists(st.integers(low, dim - 1), min_size=math.prod(shape), max_size=math.prod(shape))
    )
    return n.given(np.asarray(values, dtype=numpy_dtype(elem)).reshape(shape))


@recipe
def gather(n: NodeDraw) -> NodeCase:
    shape, axis = shape_with_nonempty_axis(n)
    if n.version < 11:
        axis %= len(shape)
    index_shape = n.shape(max_dims=2, max_side=3)
    indices = _indices(n, index_shape, shape[axis], negative=n.version >= 11)
    return n.case([n.tensor(0, shape), indices], {"axis": axis})


@recipe
def gather_elements(n: NodeDraw) -> NodeCase:
    shape, axis = shape_with_nonempty_axis(n, max_dims=3)
    index_shape = tuple(
        n.integer(0, 3) if i == axis else n.integer(0, d) for i, d in enumerate(shape)
    )
    return n.case([n.tensor(0, shape), _indices(n, index_shape, shape[axis])], {"axis": axis})


@recipe
def gather_nd(n: NodeDraw) -> NodeCase:
    data_shape = n.shape(min_dims=1, min_side=1, max_dims=4, max_side=3)
    rank = len(data_shape)
    batch = n.integer(0, rank - 1) if n.version >= 12 else 0
    depth = n.integer(1, rank - batch)
    middle = n.shape(max_dims=2, max_side=3)
    index_shape = (*data_shape[:batch], *middle, depth)
    columns = [
        _indices(n, (*index_shape[:-1], 1), data_shape[batch + j], elem=ElementType.INT64).value
        for j in range(depth)
    ]
    indices = n.given(np.concatenate(columns, axis=-1))
    return n.case([n.tensor(0, data_shape), indices], n.attrs(batch_dims=batch))


@recipe
def scatter_elements(n: NodeDraw) -> NodeCase:
    shape, axis = shape_with_nonempty_axis(n, max_dims=3)
    index_shape = tuple(n.integer(0, d) for d in shape)
    indices = _indices(n, index_shape, shape[axis])
    updates = n.tensor(2, index_shape)
    attrs = _reduction_attrs(n)
    return n.case([n.tensor(0, shape), indices, updates], {"axis": axis, **attrs})


@recipe
def scatter_nd(n: NodeDraw) -> NodeCase:
    data_shape = n.shape(min_dims=1, min_side=1, max_side=3)
    depth = n.integer(1, len(data_shape))
    middle = n.shape(max_dims=2, max_side=3)
    columns = [
        _indices(n, (*middle, 1), data_shape[j], elem=ElementType.INT64).value for j in range(depth)
    ]
    indices = n.given(np.concatenate(columns, axis=-1))
    updates = n.tensor(2, (*middle, *data_shape[depth:]))
    attrs = _reduction_attrs(n)
    return n.case([n.tensor(0, data_shape), indices, updates], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("Gather", gather)
    recipes.add("GatherElements", gather_elements)
    recipes.add("GatherND", gather_nd)
    recipes.add("Scatter", scatter_elements)
    recipes.add("ScatterElements", scatter_elements)
    recipes.add("ScatterND", scatter_nd)
