"""Recipes of the center crop pad family: strategies drawing valid nodes of CenterCropPad, every
version."""

from __future__ import annotations

from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


@recipe
def center_crop_pad(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=1)
    x = n.tensor(0, shape)
    axes = n.axes(len(shape), min_size=1) if n.flag() else None
    count = len(shape) if axes is None else len(axes)
    target = [n.integer(0, 5) for _ in range(count)]
    attrs = {} if axes is None else {"axes": axes}
    return n.case([x, n.ints(target, elem=n.elem("Tind"))], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("CenterCropPad", center_crop_pad)
