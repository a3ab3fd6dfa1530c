"""Recipes of the rotary family: strategies drawing valid nodes of RotaryEmbedding, every
version."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


@recipe
def rotary_embedding(n: NodeDraw) -> NodeCase:
    batch, seq, heads = n.integer(1, 2), n.integer(1, 3), n.integer(1, 2)
    head = 2 * n.integer(1, 2)
    rotary = 2 * n.integer(1, head // 2)
    packed = n.flag()
    x_shape = (batch, seq, heads * head) if packed else (batch, heads, seq, head)
    x = n.tensor(0, x_shape, low=-1, high=1)
    attrs: dict[str, Any] = n.attrs(interleaved=st.sampled_from([0, 1]))
    if packed:
        attrs["num_heads"] = heads
    if rotary != head or n.flag():
        attrs["rotary_embedding_dim"] = rotary
    if n.flag():
        positions = n.integer(seq, seq + 2)
        cache_shape: tuple[int, ...] = (positions, rotary // 2)
        ids: Input | None = n.given(
            n.array(ElementType.INT64, (batch, seq), low=0, high=positions - 1)
        )
    else:
        cache_shape, ids = (batch, seq, rotary // 2), None
    cos = n.tensor(1, cache_shape, low=-1, high=1)
    sin = n.tensor(2, cache_shape, low=-1, high=1)
    return n.case([x, cos, sin, ids], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("RotaryEmbedding", rotary_embedding)
