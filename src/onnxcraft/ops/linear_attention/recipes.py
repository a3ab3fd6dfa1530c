"""Recipes of the linear attention family: strategies drawing valid nodes of LinearAttention, every
version."""

from __future__ import annotations

from hypothesis import strategies as st

from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


@recipe
def linear_attention(n: NodeDraw) -> NodeCase:
    batch, steps, kv_heads = n.integer(1, 2), n.integer(1, 3), n.integer(1, 2)
    q_heads = kv_heads * n.integer(1, 2)
    key_size, value_size = n.integer(1, 3), n.integer(1, 3)
    rule = n.choice(["linear", "gated", "delta", "gated_delta"])
    q = n.tensor(0, (batch, steps, q_heads * key_size), low=-1, high=1)
    k = n.tensor(1, (batch, steps, kv_heads * key_size), low=-1, high=1)
    v = n.tensor(2, (batch, steps, kv_heads * value_size), low=-1, high=1)
    state = None
    if n.flag():
        state = n.tensor(
            3, (batch, kv_heads, key_size, value_size), elem=n.elem("S"), low=-1, high=1
        )
    decay = beta = None
    if "gated" in rule:
        shape = n.choice([(batch, steps, kv_heads), (batch, steps, kv_heads * key_size)])
        decay = n.tensor(4, shape, low=-1, high=0)
    if "delta" in rule:
        beta = n.tensor(5, (batch, steps, kv_heads), low=0, high=1)
    attrs = {
        "q_num_heads": q_heads,
        "kv_num_heads": kv_heads,
        "update_rule": rule,
        **n.attrs(scale=st.sampled_from([None, 0.5]), chunk_size=st.sampled_from([None, 2])),
    }
    return n.case([q, k, v, state, decay, beta], attrs, outputs=2)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("LinearAttention", linear_attention)
