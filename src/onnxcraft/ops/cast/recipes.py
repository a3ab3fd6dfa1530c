"""Recipes of the cast family: strategies drawing valid nodes of Cast, CastLike, every version."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


def _source(n: NodeDraw, index: int, shape: tuple[int, ...]) -> Input:
    """A value to convert. Strings hold small whole numbers ("0" to "3"): the standard
    defines parsing numbers, and these read the same in every numeric type."""
    elem = n.elem(n.param(index))
    if elem != ElementType.STRING:
        return n.tensor(index, shape, low=-3, high=3)
    numbers = n.array(ElementType.UINT8, shape, low=0, high=3)
    text = np.empty(shape, dtype=object)
    text.reshape(-1)[:] = [str(int(v)) for v in numbers.reshape(-1)]
    return n.given(text)


def _target(n: NodeDraw, param: str) -> ElementType:
    """The element type to convert to; a string source converts to numbers only (how a
    string reads as a bool the standard does not say)."""
    if n.elem(n.param(0)) == ElementType.STRING:
        return n.elem(param, exclude={ElementType.BOOL})
    return n.elem(param)


@recipe
def cast(n: NodeDraw) -> NodeCase:
    x = _source(n, 0, n.shape())
    target = _target(n, "T2")
    attrs: dict[str, Any] = n.attrs(
        saturate=st.sampled_from([0, 1]), round_mode=st.sampled_from(["up", "down", "nearest"])
    )
    attrs["to"] = target.name if n.version == 1 else int(target)
    return n.case([x], attrs)


@recipe
def cast_like(n: NodeDraw) -> NodeCase:
    x = _source(n, 0, n.shape())
    _target(n, "T2")
    like = n.tensor(1, n.shape(max_dims=2))
    attrs = n.attrs(
        saturate=st.sampled_from([0, 1]), round_mode=st.sampled_from(["up", "down", "nearest"])
    )
    return n.case([x, like], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("Cast", cast)
    recipes.add("CastLike", cast_like)
