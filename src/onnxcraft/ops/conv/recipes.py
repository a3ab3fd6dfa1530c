"""Recipes of the conv family: strategies drawing valid nodes of Conv, ConvInteger, QLinearConv,
every version."""

from __future__ import annotations

from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import FLOATS, NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import group_sizes, window

__all__ = ["register"]


@recipe
def conv(n: NodeDraw) -> NodeCase:
    win = window(n)
    group, channels, maps = group_sizes(n)
    batch = n.integer(0, 2)
    x = n.tensor(0, (batch, channels, *win.sizes), low=-2, high=2)
    w = n.tensor(1, (maps, channels // group, *win.kernel), low=-2, high=2)
    bias = n.tensor(2, (maps,)) if n.flag() else None
    attrs = {**win.attrs(n, kernel=n.flag()), **({"group": group} if group > 1 or n.flag() else {})}
    return n.case([x, w, bias], attrs)


@recipe
def conv_integer(n: NodeDraw) -> NodeCase:
    win = window(n)
    group, channels, maps = group_sizes(n)
    x = n.tensor(0, (n.integer(0, 2), channels, *win.sizes), low=0, high=4)
    w = n.tensor(1, (maps, channels // group, *win.kernel), low=0, high=4)
    x_zero = n.tensor(2, (), low=0, high=2) if n.flag() else None
    w_zero = n.tensor(3, n.choice([(), (maps,)]), low=0, high=2) if n.flag() else None
    return n.case([x, w, x_zero, w_zero], {**win.attrs(n), "group": group})


def _scalar_scale(n: NodeDraw, index: int, shape: tuple[int, ...] = ()) -> Input:
    return n.tensor(index, shape, low=0.25, high=1)


def _zero(n: NodeDraw, index: int, shape: tuple[int, ...] = ()) -> Input:
    elem = n.elem(n.param(index))
    return n.tensor(index, shape, low=0, high=0 if elem in FLOATS else 3)


@recipe
def qlinear_conv(n: NodeDraw) -> NodeCase:
    win = window(n)
    group, channels, maps = group_sizes(n)
    x = n.tensor(0, (n.integer(0, 2), channels, *win.sizes), low=0, high=4)
    w = n.tensor(3, (maps, channels // group, *win.kernel), low=0, high=4)
    per_channel = n.choice([(), (maps,)])
    inputs = [
        x,
        _scalar_scale(n, 1),
        _zero(n, 2),
        w,
        _scalar_scale(n, 4, per_channel),
        _zero(n, 5, per_channel),
        _scalar_scale(n, 6),
        _zero(n, 7),
        n.tensor(8, (maps,)) if n.flag() else None,
    ]
    return n.case(inputs, {**win.attrs(n), "group": group})


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("Conv", conv)
    recipes.add("ConvInteger", conv_integer)
    recipes.add("QLinearConv", qlinear_conv)
