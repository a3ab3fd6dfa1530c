"""Recipes of the dropout family: strategies drawing valid nodes of Dropout, every version."""

from __future__ import annotations

from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


@recipe
def dropout(n: NodeDraw) -> NodeCase:
    x = n.tensor(0, n.shape())
    if n.version < 12:
        return n.case([x], n.attrs(ratio=st.sampled_from([0.0, 0.5]), is_test=1))
    ratio = n.scalar(n.choice([0.0, 0.5]), n.elem("T1")) if n.flag() else None
    training = n.scalar(n.flag(), ElementType.BOOL) if n.flag() else None
    return n.case([x, ratio, training], n.attrs(seed=st.sampled_from([None, 3])))


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("Dropout", dropout)
