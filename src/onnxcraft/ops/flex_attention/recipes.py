"""Recipes of the flex attention family: strategies drawing valid nodes of FlexAttention, every
version."""

from __future__ import annotations

from hypothesis import strategies as st

from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]

_DOMAIN = "ai.onnx.preview"


@recipe
def flex_attention(n: NodeDraw) -> NodeCase:
    batch, kv_heads = n.integer(1, 2), n.integer(1, 2)
    q_heads = kv_heads * n.integer(1, 2)
    q_len, kv_len, head, value_head = (
        n.integer(1, 3),
        n.integer(1, 3),
        n.integer(1, 3),
        n.integer(1, 3),
    )
    q = n.tensor(0, (batch, q_heads, q_len, head), low=-1, high=1)
    k = n.tensor(1, (batch, kv_heads, kv_len, head), low=-1, high=1)
    v = n.tensor(2, (batch, kv_heads, kv_len, value_head), low=-1, high=1)
    return n.case([q, k, v], n.attrs(scale=st.sampled_from([None, 0.5])))


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("FlexAttention", flex_attention, domain=_DOMAIN)
