"""Recipes of the roi family: strategies drawing valid nodes of MaxRoiPool, RoiAlign, every
version."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.numerics import from_float32
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


def _rois(n: NodeDraw, count: int, height: int, width: int) -> np.ndarray:
    """Boxes (x1, y1, x2, y2) inside a ``height`` x ``width`` image."""
    corners = []
    for _ in range(count):
        x1, y1 = n.integer(0, width - 1), n.integer(0, height - 1)
        corners.append([x1, y1, n.integer(x1, width - 1), n.integer(y1, height - 1)])
    return np.asarray(corners, dtype=np.float64).reshape(count, 4)


@recipe
def max_roi_pool(n: NodeDraw) -> NodeCase:
    batch, channels, height, width = (
        n.integer(1, 2),
        n.integer(1, 2),
        n.integer(1, 4),
        (n.integer(1, 4)),
    )
    x = n.tensor(0, (batch, channels, height, width))
    count = n.integer(0, 3)
    boxes = _rois(n, count, height, width)
    index = np.asarray([[n.integer(0, batch - 1)] for _ in range(count)]).reshape(count, 1)
    elem = n.elem("T")
    rois = n.given(_as(np.concatenate([index, boxes], axis=1), elem))
    attrs = {"pooled_shape": [n.integer(1, 2), n.integer(1, 2)]}
    return n.case([x, rois], attrs)


def _as(values: np.ndarray, elem: ElementType) -> np.ndarray:
    return from_float32(values.astype(np.float32), elem)


@recipe
def roi_align(n: NodeDraw) -> NodeCase:
    batch, channels, height, width = (
        n.integer(1, 2),
        n.integer(1, 2),
        n.integer(1, 4),
        (n.integer(1, 4)),
    )
    x = n.tensor(0, (batch, channels, height, width))
    count = n.integer(0, 3)
    rois = n.given(_as(_rois(n, count, height, width), n.elem("T1")))
    indices = n.ints([n.integer(0, batch - 1) for _ in range(count)])
    attrs = n.attrs(
        output_height=st.integers(1, 2),
        output_width=st.integers(1, 2),
        sampling_ratio=st.integers(0, 2),
        mode=st.sampled_from(["avg", "max"]),
        coordinate_transformation_mode=st.sampled_from(["half_pixel", "output_half_pixel"]),
    )
    return n.case([x, rois, indices], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("MaxRoiPool", max_roi_pool)
    recipes.add("RoiAlign", roi_align)
