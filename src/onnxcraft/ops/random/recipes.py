"""Recipes of the random family: strategies drawing valid nodes of RandomNormal, RandomUniform,
RandomNormalLike, RandomUniformLike, Bernoulli, Multinomial, every version.

The generators' shapes and types are deterministic even where their values are not.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]

_SEED = st.sampled_from([None, 1.0, 7.0])


@recipe
def random_fill(n: NodeDraw) -> NodeCase:
    """RandomNormal, RandomUniform: the shape attribute says it all."""
    attrs: dict[str, Any] = {"shape": list(n.shape(max_dims=3, max_side=3))}
    elem = n.elem("T")
    if elem != ElementType.FLOAT or n.flag():
        attrs["dtype"] = int(elem)
    attrs.update(
        n.attrs(
            seed=_SEED,
            mean=st.sampled_from([0.0, 1.0]),
            scale=st.sampled_from([1.0, 0.5]),
            low=st.sampled_from([0.0, -1.0]),
            high=st.sampled_from([1.0, 2.0]),
        )
    )
    return n.case([], attrs)


@recipe
def random_like(n: NodeDraw) -> NodeCase:
    x = n.tensor(0, n.shape(max_dims=3, max_side=3))
    attrs: dict[str, Any] = n.attrs(seed=_SEED)
    source = n.elem("T1")
    outputs = n.tensor_elems("T2")
    if source not in outputs or n.flag():  # without dtype the output takes the input's type
        attrs["dtype"] = int(n.elem("T2"))
    else:
        n.bind("T2", source)
    return n.case([x], attrs)


@recipe
def bernoulli(n: NodeDraw) -> NodeCase:
    x = n.tensor(0, n.shape(max_dims=3, max_side=3), low=0, high=1)
    attrs: dict[str, Any] = n.attrs(seed=_SEED)
    if n.elem("T1") not in n.tensor_elems("T2") or n.flag():
        attrs["dtype"] = int(n.elem("T2"))
    return n.case([x], attrs)


@recipe
def multinomial(n: NodeDraw) -> NodeCase:
    x = n.tensor(0, (n.integer(1, 3), n.integer(1, 3)), low=-2, high=0)
    attrs = n.attrs(seed=_SEED, sample_size=st.integers(1, 3))
    target = n.elem("T2")
    if target != ElementType.INT32 or n.flag():
        attrs["dtype"] = int(target)
    return n.case([x], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("RandomNormal", random_fill)
    recipes.add("RandomUniform", random_fill)
    recipes.add("RandomNormalLike", random_like)
    recipes.add("RandomUniformLike", random_like)
    recipes.add("Bernoulli", bernoulli)
    recipes.add("Multinomial", multinomial)
