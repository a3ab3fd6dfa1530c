"""Recipes of the causal conv family: strategies drawing valid nodes of CausalConvWithState, every
version."""

from __future__ import annotations

from hypothesis import strategies as st

from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


@recipe
def causal_conv_with_state(n: NodeDraw) -> NodeCase:
    batch, channels, length, kernel = (
        n.integer(1, 2),
        n.integer(1, 3),
        n.integer(1, 4),
        n.integer(1, 3),
    )
    x = n.tensor(0, (batch, channels, length), low=-2, high=2)
    weight = n.tensor(1, (channels, 1, kernel), low=-1, high=1)
    bias = n.tensor(2, (channels,)) if n.flag() else None
    past = n.tensor(3, (batch, channels, kernel - 1)) if n.flag() else None
    attrs = n.attrs(activation=st.sampled_from(["none", "silu", "swish"]))
    return n.case([x, weight, bias, past], attrs, outputs=2)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("CausalConvWithState", causal_conv_with_state)
