"""Recipes of the deform conv family: strategies drawing valid nodes of DeformConv, every
version."""

from __future__ import annotations

import math

from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import group_sizes, window

__all__ = ["register"]


@recipe
def deform_conv(n: NodeDraw) -> NodeCase:
    win = window(n, rank=2, auto_pad=False)
    group, channels, maps = group_sizes(n)
    offset_group = n.choice([g for g in (1, 2) if channels % g == 0])
    batch = n.integer(1, 2)
    out = [
        (size + win.pads[i] + win.pads[i + 2] - (k - 1) * d - 1) // s + 1
        for i, (size, k, d, s) in enumerate(zip(win.sizes, win.kernel, win.dilations, win.strides))
    ]
    taps = math.prod(win.kernel)
    x = n.tensor(0, (batch, channels, *win.sizes), low=-2, high=2)
    w = n.tensor(1, (maps, channels // group, *win.kernel), low=-2, high=2)
    offset = n.tensor(2, (batch, offset_group * 2 * taps, *out), low=-1, high=1)
    bias = n.tensor(3, (maps,)) if n.flag() else None
    mask = n.tensor(4, (batch, offset_group * taps, *out), low=0, high=1) if n.flag() else None
    attrs = {**win.attrs(n), "group": group, "offset_group": offset_group}
    return n.case([x, w, offset, bias, mask], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("DeformConv", deform_conv)
