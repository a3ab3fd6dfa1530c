"""Recipes of the pool family: strategies drawing valid nodes of AveragePool, MaxPool, LpPool,
GlobalAveragePool, GlobalMaxPool, GlobalLpPool, MaxUnpool, every version."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, Recipe, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import window

__all__ = ["register"]


def pool(*, lp: bool = False) -> Recipe:
    """AveragePool, MaxPool and LpPool: a window; ceil_mode, count_include_pad, p, indices."""

    @recipe
    def draw(n: NodeDraw) -> NodeCase:
        win = window(n, dilate="dilations" in n.attribute_names)
        x = n.tensor(0, (n.integer(0, 2), n.integer(1, 2), *win.sizes), low=-2, high=2)
        attrs = win.attrs(n)
        if "ceil_mode" in n.attribute_names and n.flag():
            # The standard drops a last window that would start in the right padding.
            attrs["ceil_mode"] = 1
        attrs.update(
            n.attrs(
                count_include_pad=st.sampled_from([0, 1]), storage_order=st.sampled_from([0, 1])
            )
        )
        if lp:
            attrs.update(
                n.attrs(
                    p=st.sampled_from([1, 2, 3]) if n.version >= 2 else st.sampled_from([1.0, 2.0])
                )
            )
        outputs = None if len(n.spec.outputs) > 1 else 1
        return n.case([x], attrs, outputs=outputs)

    return draw


@recipe
def global_pool(n: NodeDraw) -> NodeCase:
    shape = (n.integer(0, 2), n.integer(1, 3), *n.shape(min_dims=1, max_dims=2, min_side=1))
    attrs = n.attrs(p=st.sampled_from([1, 2, 3]) if n.version >= 2 else st.sampled_from([2.0]))
    return n.case([n.tensor(0, shape)], attrs)


@recipe
def max_unpool(n: NodeDraw) -> NodeCase:
    win = window(n, dilate=False, auto_pad=False)
    batch, channels = n.integer(1, 2), n.integer(1, 2)
    pooled = [
        (size + win.pads[i] + win.pads[i + len(win.kernel)] - k) // s + 1
        for i, (size, k, s) in enumerate(zip(win.sizes, win.kernel, win.strides))
    ]
    x = n.tensor(0, (batch, channels, *pooled))
    rank = len(win.kernel)
    default = [
        (p - 1) * s + k - win.pads[i] - win.pads[i + rank]
        for i, (p, s, k) in enumerate(zip(pooled, win.strides, win.kernel))
    ]
    per_image = math.prod(default)
    # Indices address the flattened (N, C, *default) unpooled tensor, each within its image;
    # a larger output_shape pads the end of every spatial axis (the standard's node tests).
    offsets = (np.arange(batch * channels) * per_image).reshape(batch, channels, *([1] * rank))
    local = n.array(ElementType.INT64, (batch, channels, *pooled), low=0, high=per_image - 1)
    indices = n.given(local + offsets)
    attrs = {"kernel_shape": win.kernel, "strides": win.strides, "pads": win.pads}
    larger = [d + n.integer(0, 1) for d in default]
    output_shape = n.ints([batch, channels, *larger]) if n.flag() else None
    return n.case([x, indices, output_shape], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("AveragePool", pool())
    recipes.add("MaxPool", pool())
    recipes.add("LpPool", pool(lp=True))
    recipes.add("GlobalAveragePool", global_pool)
    recipes.add("GlobalMaxPool", global_pool)
    recipes.add("GlobalLpPool", global_pool)
    recipes.add("MaxUnpool", max_unpool)
