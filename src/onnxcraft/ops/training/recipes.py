"""Recipes of the training family: strategies drawing valid nodes of Adagrad, Momentum, Adam, every
version."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, Recipe, RecipeRegistry, recipe

__all__ = ["register"]

_DOMAIN = "ai.onnx.preview.training"


def optimizer(*, slots: int, **attrs: Any) -> Recipe:
    """Adagrad (1 slot), Momentum (1) and Adam (2): R, T, then X..., G..., and each slot."""

    @recipe
    def draw(n: NodeDraw) -> NodeCase:
        rate = n.scalar(n.choice([0.1, 0.5]), n.elem("T1"))
        step = n.scalar(n.integer(0, 3), ElementType.INT64)
        shapes = [n.shape(max_dims=2, max_side=3) for _ in range(n.integer(1, 2))]
        groups = 2 + slots  # parameters, gradients, then the optimizer's state tensors
        tensors = [n.tensor(2, shape, low=0, high=2) for _ in range(groups) for shape in shapes]
        return n.case([rate, step, *tensors], n.attrs(**attrs), outputs=(1 + slots) * len(shapes))

    return draw


_FACTOR = st.sampled_from([0.0, 0.1])


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add(
        "Adagrad",
        optimizer(
            slots=1, decay_factor=_FACTOR, epsilon=st.sampled_from([1e-6]), norm_coefficient=_FACTOR
        ),
        domain=_DOMAIN,
    )
    recipes.add(
        "Momentum",
        optimizer(
            slots=1,
            alpha=st.sampled_from([0.9]),
            beta=st.sampled_from([1.0]),
            mode=st.sampled_from(["standard", "nesterov"]),
            norm_coefficient=_FACTOR,
        ),
        domain=_DOMAIN,
    )
    recipes.add(
        "Adam",
        optimizer(
            slots=2,
            alpha=st.sampled_from([0.9]),
            beta=st.sampled_from([0.999]),
            epsilon=st.sampled_from([1e-6]),
            norm_coefficient=_FACTOR,
            norm_coefficient_post=_FACTOR,
        ),
        domain=_DOMAIN,
    )
