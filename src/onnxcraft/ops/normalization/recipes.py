"""Recipes of the normalization family: strategies drawing valid nodes of LpNormalization,
MeanVarianceNormalization, LRN, BatchNormalization, InstanceNormalization, LayerNormalization,
GroupNormalization, RMSNormalization, every version."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import ALPHA, along_axis

__all__ = ["register"]


@recipe
def mean_variance_normalization(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=1, min_side=1)
    x = n.tensor(0, shape)
    return n.case([x], n.attrs(axes=n.axes(len(shape), min_size=1)))


@recipe
def lrn(n: NodeDraw) -> NodeCase:
    x = n.tensor(0, n.shape(min_dims=3, min_side=1), low=0, high=2)
    return n.case([x], n.attrs(size=n.choice([1, 3, 5]), alpha=ALPHA, beta=ALPHA, bias=ALPHA))


_EPSILON = st.sampled_from([1e-5, 0.5])


@recipe
def batch_normalization(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=2, max_dims=4, max_side=3)
    channels = shape[1]
    x = n.tensor(0, shape, low=-2, high=2)
    scale, bias = (n.tensor(i, (channels,)) for i in (1, 2))
    mean = n.tensor(3, (channels,))
    var = n.tensor(4, (channels,), low=0.5, high=2)
    attrs: dict[str, Any] = n.attrs(epsilon=_EPSILON, momentum=st.sampled_from([0.9, 0.5]))
    attrs.update(n.attrs(is_test=1, consumed_inputs=[0, 0, 0, 1, 1]))
    outputs: int | list[bool] = 1
    if "training_mode" in n.attribute_names and n.flag():
        attrs["training_mode"] = 1
        # onnx wants all three outputs named in training mode
        outputs = [True, True, True]
    return n.case([x, scale, bias, mean, var], attrs, outputs=outputs)


@recipe
def instance_normalization(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=3, max_dims=4, min_side=1, max_side=3)
    x = n.tensor(0, shape, low=-2, high=2)
    scale, bias = (n.tensor(i, (shape[1],)) for i in (1, 2))
    return n.case([x, scale, bias], n.attrs(epsilon=_EPSILON))


@recipe
def layer_normalization(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=1, min_side=1, max_side=3)
    axis = n.axis(len(shape))
    normalized = shape[axis:]
    x = n.tensor(0, shape, low=-2, high=2)
    scale = n.tensor(1, normalized)
    bias = n.tensor(2, normalized) if n.flag() else None
    attrs = {"axis": axis, **n.attrs(epsilon=_EPSILON)}
    stash = n.elem("U")
    attrs["stash_type"] = int(stash)
    return n.case([x, scale, bias], attrs)


@recipe
def group_normalization(n: NodeDraw) -> NodeCase:
    groups = n.integer(1, 2)
    spatial = n.shape(min_dims=0, max_dims=2, min_side=1, max_side=3)
    shape = (n.integer(1, 2), groups * n.integer(1, 2), *spatial)
    x = n.tensor(0, shape, low=-2, high=2)
    scale, bias = (n.tensor(i, (shape[1],)) for i in (1, 2))
    return n.case([x, scale, bias], {"num_groups": groups, **n.attrs(epsilon=_EPSILON)})


@recipe
def rms_normalization(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=1, min_side=1, max_side=3)
    axis = n.axis(len(shape))
    normalized = shape[axis:]
    scale_shape = normalized[n.integer(0, len(normalized)) :]  # broadcasts to the normalized dims
    x = n.tensor(0, shape, low=-2, high=2)
    return n.case([x, n.tensor(1, scale_shape)], {"axis": axis, **n.attrs(epsilon=_EPSILON)})


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("LpNormalization", along_axis(p=st.sampled_from([1, 2])))
    recipes.add("MeanVarianceNormalization", mean_variance_normalization)
    recipes.add("LRN", lrn)
    recipes.add("BatchNormalization", batch_normalization)
    recipes.add("InstanceNormalization", instance_normalization)
    recipes.add("LayerNormalization", layer_normalization)
    recipes.add("GroupNormalization", group_normalization)
    recipes.add("RMSNormalization", rms_normalization)
