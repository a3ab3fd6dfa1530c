"""Recipes of the nms family: strategies drawing valid nodes of NonMaxSuppression, every version."""

from __future__ import annotations

import numpy as np

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


@recipe
def non_max_suppression(n: NodeDraw) -> NodeCase:
    batches, classes, count = n.integer(1, 2), n.integer(1, 2), n.integer(0, 4)
    corners = n.array(ElementType.FLOAT, (batches, count, 2), low=0, high=4)
    extents = n.array(ElementType.FLOAT, (batches, count, 2), low=0.5, high=3)
    boxes = n.given(np.concatenate([corners, corners + extents], axis=-1))
    scores = n.tensor(1, (batches, classes, count), low=0, high=1)
    limit = n.ints([n.integer(0, 3)]) if n.flag() else None
    iou = n.scalar(n.choice([0.0, 0.5]), ElementType.FLOAT) if limit and n.flag() else None
    threshold = n.scalar(0.25, ElementType.FLOAT) if iou and n.flag() else None
    center = n.integer(0, 1) if n.flag() else 0
    attrs = {"center_point_box": center} if center else {}
    return n.case([boxes, scores, limit, iou, threshold], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("NonMaxSuppression", non_max_suppression)
