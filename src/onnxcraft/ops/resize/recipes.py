"""Recipes of the resize family: strategies drawing valid nodes of Resize, Upsample, every
version."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from onnxcraft.dtypes import numpy_dtype
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import FLOATS, INTEGERS, NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]

_SCALES = (0.5, 1.0, 1.5, 2.0, 3.0)


def _resize_plan(n: NodeDraw, rank: int, interpolating: bool) -> list[int]:
    """The axes Resize changes: any for nearest, the last two for (bi)linear and cubic."""
    if not interpolating:
        return list(range(rank))
    return list(range(max(rank - 2, 0), rank))


@recipe
def resize(n: NodeDraw) -> NodeCase:
    mode = n.choice(["nearest", "linear", "cubic"] if n.version >= 11 else ["nearest", "linear"])
    if mode != "nearest":
        n.elem(n.param(0), only=FLOATS | INTEGERS)  # interpolating needs numbers
    shape = n.shape(min_dims=1 if mode == "nearest" else 2, max_dims=4, min_side=1, max_side=3)
    x = n.tensor(0, shape, low=-2, high=2)
    rank = len(shape)
    changing = _resize_plan(n, rank, mode != "nearest")
    axes = None
    if "axes" in n.attribute_names and n.flag():
        axes = changing
    listed = axes if axes is not None else list(range(rank))
    attrs: dict[str, Any] = {"mode": mode}
    if n.version == 10:
        scales = [n.choice(_SCALES) if a in changing else 1.0 for a in listed]
        return n.case([x, n.given(np.asarray(scales, np.float32))], attrs)
    attrs.update(
        n.attrs(
            coordinate_transformation_mode=st.sampled_from(
                ["half_pixel", "asymmetric", "pytorch_half_pixel", "align_corners"]
            ),
            nearest_mode=st.sampled_from(
                ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]
            ),
            cubic_coeff_a=st.sampled_from([-0.75, -0.5]),
            exclude_outside=st.sampled_from([0, 1]),
            antialias=st.sampled_from([0, 1]) if mode != "nearest" else None,
        )
    )
    if axes is not None:
        attrs["axes"] = axes
    by_sizes = n.flag()
    roi_elem = n.elem("T2")
    roi = n.given(np.zeros((0,), numpy_dtype(roi_elem))) if n.version == 11 else None
    empty_scales = n.given(np.zeros((0,), np.float32)) if n.version == 11 else None
    if by_sizes:
        sizes = [n.integer(1, 5) if a in changing else shape[a] for a in listed]
        if "keep_aspect_ratio_policy" in n.attribute_names:
            attrs["keep_aspect_ratio_policy"] = n.choice(["stretch", "not_larger", "not_smaller"])
        return n.case([x, roi, empty_scales, n.ints(sizes)], attrs)
    scales = [n.choice(_SCALES) if a in changing else 1.0 for a in listed]
    return n.case([x, roi, n.given(np.asarray(scales, np.float32))], attrs)


@recipe
def upsample(n: NodeDraw) -> NodeCase:
    modes = ["nearest", "bilinear"] if n.version == 1 else ["nearest", "linear"]
    mode = n.choice(modes)
    if mode != "nearest":
        n.elem("T", only=FLOATS | INTEGERS)  # interpolating needs numbers
    rank = 4 if n.version == 1 or mode != "nearest" else n.integer(1, 4)
    shape = n.shape(min_dims=rank, max_dims=rank, min_side=1, max_side=3)
    x = n.tensor(0, shape)
    factors = [1.0] * (rank - 2) + [n.choice([1.0, 2.0, 3.0]) for _ in range(min(rank, 2))]
    factors = factors[-rank:]
    if n.version == 1:
        attrs = {"mode": mode, "height_scale": factors[2], "width_scale": factors[3]}
        return n.case([x], attrs)
    if n.version == 7:
        return n.case([x], {"mode": mode, "scales": factors})
    return n.case([x, n.given(np.asarray(factors, np.float32))], {"mode": mode})


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("Resize", resize)
    recipes.add("Upsample", upsample)
