"""Recipes of the conv transpose family: strategies drawing valid nodes of ConvTranspose, Col2Im,
every version."""

from __future__ import annotations

import math

from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import FLOATS, INTEGERS, NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import group_sizes, window

__all__ = ["register"]

NUMERIC = FLOATS | INTEGERS


@recipe
def conv_transpose(n: NodeDraw) -> NodeCase:
    win = window(n)
    group, channels, maps = group_sizes(n)
    x = n.tensor(0, (n.integer(0, 2), channels, *win.sizes), low=-2, high=2)
    w = n.tensor(1, (channels, maps // group, *win.kernel), low=-2, high=2)
    bias = n.tensor(2, (maps,)) if n.flag() else None
    attrs = {**win.attrs(n, kernel=n.flag()), "group": group}
    limits = [max(s, d) for s, d in zip(win.strides, win.dilations)]
    if n.flag():
        attrs["output_padding"] = [n.integer(0, limit - 1) for limit in limits]
    if n.flag() and win.auto_pad == "NOTSET":
        attrs.pop("pads", None)
        padding = attrs.get("output_padding", [0] * len(win.kernel))
        attrs["output_shape"] = [
            s * (i - 1) + p + (k - 1) * d + 1 - n.integer(0, (k - 1) * d)
            for s, i, p, k, d in zip(win.strides, win.sizes, padding, win.kernel, win.dilations)
        ]
    return n.case([x, w, bias], attrs)


@recipe
def col2im(n: NodeDraw) -> NodeCase:
    win = window(n, rank=2, auto_pad=False)
    blocks = [
        (size + win.pads[i] + win.pads[i + 2] - (k - 1) * d - 1) // s + 1
        for i, (size, k, d, s) in enumerate(zip(win.sizes, win.kernel, win.dilations, win.strides))
    ]
    channels = n.integer(1, 2)
    n.elem("T", only=NUMERIC)  # overlapping blocks are summed: strings and bools cannot be
    x = n.tensor(0, (n.integer(1, 2), channels * math.prod(win.kernel), math.prod(blocks)))
    attrs = {
        "strides": win.strides,
        "dilations": win.dilations,
        "pads": win.pads,
    }
    return n.case([x, n.ints(win.sizes), n.ints(win.kernel)], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("ConvTranspose", conv_transpose)
    recipes.add("Col2Im", col2im)
