"""Recipes of the grid family: strategies drawing valid nodes of GridSample, AffineGrid, every
version."""

from __future__ import annotations

from hypothesis import strategies as st

from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import FLOATS, INTEGERS, NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


@recipe
def grid_sample(n: NodeDraw) -> NodeCase:
    modern = n.version >= 20
    modes = ["linear", "nearest", "cubic"] if modern else ["bilinear", "nearest", "bicubic"]
    mode = n.choice(modes)
    spatial = 2 if not modern or mode == "cubic" else n.integer(2, 3)
    numeric = FLOATS | INTEGERS if mode == "nearest" else FLOATS
    n.elem("T1", only=numeric)
    batch, channels = n.integer(1, 2), n.integer(1, 2)
    sizes = [n.integer(1, 3) for _ in range(spatial)]
    out = [n.integer(1, 3) for _ in range(spatial)]
    x = n.tensor(0, (batch, channels, *sizes))
    grid = n.tensor(1, (batch, *out, spatial), low=-1.5, high=1.5)
    attrs = {
        "mode": mode,
        **n.attrs(
            align_corners=st.sampled_from([0, 1]),
            padding_mode=st.sampled_from(["zeros", "border", "reflection"]),
        ),
    }
    return n.case([x, grid], attrs)


@recipe
def affine_grid(n: NodeDraw) -> NodeCase:
    spatial = n.integer(2, 3)
    batch = n.integer(1, 2)
    theta = n.tensor(0, (batch, spatial, spatial + 1), low=-1, high=1)
    size = [batch, n.integer(1, 2), *[n.integer(1, 3) for _ in range(spatial)]]
    return n.case([theta, n.ints(size)], n.attrs(align_corners=st.sampled_from([0, 1])))


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("GridSample", grid_sample)
    recipes.add("AffineGrid", affine_grid)
