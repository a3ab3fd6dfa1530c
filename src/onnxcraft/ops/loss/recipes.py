"""Recipes of the loss family: strategies drawing valid nodes of SoftmaxCrossEntropyLoss,
NegativeLogLikelihoodLoss, every version."""

from __future__ import annotations

from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, Recipe, RecipeRegistry, recipe

__all__ = ["register"]


def _labels(n: NodeDraw, shape: tuple[int, ...], classes: int, ignore: int | None) -> Input:
    values = n.array(ElementType.INT64, shape, low=0, high=classes - 1)
    if ignore is not None and values.size and n.flag():
        values.reshape(-1)[0] = ignore
    return n.given(values.astype(numpy_dtype(n.elem("Tind"))))


def loss(*, log_prob: bool) -> Recipe:
    """NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: (N, C, d...) and labels."""

    @recipe
    def draw(n: NodeDraw) -> NodeCase:
        batch, classes = n.integer(1, 3), n.integer(1, 3)
        extra = n.shape(max_dims=2, min_side=1, max_side=2)
        scores = n.tensor(0, (batch, classes, *extra), low=-2, high=0)
        ignore = n.choice([None, -1, 0])
        labels = _labels(n, (batch, *extra), classes, ignore)
        weights = n.tensor(2, (classes,), low=0.5, high=2) if n.flag() else None
        attrs = n.attrs(reduction=st.sampled_from(["none", "sum", "mean"]))
        if ignore is not None:
            attrs["ignore_index"] = ignore
        outputs = [True, n.flag()] if log_prob else [True]
        return n.case([scores, labels, weights], attrs, outputs=outputs)

    return draw


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("SoftmaxCrossEntropyLoss", loss(log_prob=True))
    recipes.add("NegativeLogLikelihoodLoss", loss(log_prob=False))
