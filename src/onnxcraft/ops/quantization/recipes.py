"""Recipes of the quantization family: strategies drawing valid nodes of MatMulInteger,
QLinearMatMul, QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, every version."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import FLOATS, NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


@recipe
def matmul_integer(n: NodeDraw) -> NodeCase:
    m, k, cols = n.integer(0, 3), n.integer(0, 3), n.integer(0, 3)
    batch = n.shape(max_dims=1, max_side=2)
    a = n.tensor(0, (*batch, m, k))
    b = n.tensor(1, (k, cols))
    per_row = (*batch, m, 1) if batch else (m,)  # the spec's per-row zero point shapes
    a_zero = n.tensor(2, n.choice([(), per_row])) if n.flag() else None
    b_zero = n.tensor(3, n.choice([(), (cols,)])) if n.flag() else None
    return n.case([a, b, a_zero, b_zero])


def _zero_point(n: NodeDraw, index: int) -> Input:
    """A scalar zero point; the float8 types admit only zero."""
    elem = n.elem(n.param(index))
    return n.tensor(index, (), low=0, high=0 if elem in FLOATS else 3)


@recipe
def qlinear_matmul(n: NodeDraw) -> NodeCase:
    m, k, cols = n.integer(0, 3), n.integer(0, 3), n.integer(0, 3)
    scale_param = n.param(1)
    a = n.tensor(0, (m, k), low=0, high=4)
    b = n.tensor(3, (k, cols), low=0, high=4)
    scales = [n.tensor(i, (), elem=n.elem(scale_param), low=0.25, high=1) for i in (1, 4, 6)]
    zeros = [_zero_point(n, i) for i in (2, 5, 7)]
    return n.case([a, scales[0], zeros[0], b, scales[1], zeros[1], scales[2], zeros[2]])


def _scale_shape(
    n: NodeDraw, shape: tuple[int, ...], granularity: str, axis: int, block: int
) -> tuple[int, ...]:
    if granularity == "tensor":
        return n.choice([(), (1,)]) if n.version >= 13 else ()
    if granularity == "axis":
        return (shape[axis],)
    blocked = list(shape)
    blocked[axis] = math.ceil(shape[axis] / block)
    return tuple(blocked)


def _granularity(n: NodeDraw, rank: int) -> tuple[str, int, int]:
    """(per "tensor", "axis" or "block", axis, block size) the version allows."""
    options = ["tensor"]
    if n.version >= 13 and rank >= 1:
        options.append("axis")
    if "block_size" in n.attribute_names and rank >= 1:
        options.append("block")
    granularity = n.choice(options)
    axis = n.axis(rank) if rank else 1
    return granularity, axis, n.integer(1, 3) if granularity == "block" else 0


def _granularity_attrs(n: NodeDraw, granularity: str, axis: int, block: int) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    if granularity != "tensor":
        attrs["axis"] = axis
    if granularity == "block":
        attrs["block_size"] = block
    return attrs


@recipe
def quantize_linear(n: NodeDraw) -> NodeCase:
    shape = n.shape(max_dims=3, min_side=1 if n.version >= 21 else 0)
    granularity, axis, block = _granularity(n, len(shape))
    x = n.tensor(0, shape, low=-8, high=8)
    scale_shape = _scale_shape(n, shape, granularity, axis, block)
    scale_param = n.param(1)
    scale = n.tensor(1, scale_shape, elem=n.elem(scale_param), low=0.5, high=2)
    out_param = n.output_param(0)
    target = n.elem(out_param)
    attrs = _granularity_attrs(n, granularity, axis, block)
    attrs.update(n.attrs(saturate=st.sampled_from([0, 1])))
    zero: Input | None = None
    if n.flag() or ("output_dtype" not in n.attribute_names and target != ElementType.UINT8):
        zero = n.tensor(2, scale_shape, elem=target, low=0, high=0 if target in FLOATS else 1)
        if "output_dtype" in n.attribute_names and n.flag():
            attrs["output_dtype"] = int(target)
    elif target != ElementType.UINT8:
        attrs["output_dtype"] = int(target)
    return n.case([x, scale, zero], attrs)


@recipe
def dequantize_linear(n: NodeDraw) -> NodeCase:
    shape = n.shape(max_dims=3, min_side=1 if n.version >= 21 else 0)
    source = n.elem("T1" if n.version >= 19 else "T")
    # int32 has no zero point; per-axis and blocked int32 are allowed, keep it per-tensor.
    granularity, axis, block = _granularity(n, len(shape))
    x = n.tensor(0, shape)
    scale_shape = _scale_shape(n, shape, granularity, axis, block)
    scale = n.tensor(1, scale_shape, elem=n.elem(n.param(1)), low=0.5, high=2)
    attrs = _granularity_attrs(n, granularity, axis, block)
    if "output_dtype" in n.attribute_names:
        scale_elem = n.elem(n.param(1))
        if scale_elem == ElementType.FLOAT8E8M0 or n.flag():
            attrs["output_dtype"] = int(n.elem("T3"))
    zero = None
    if source != ElementType.INT32 and n.flag():
        zero = n.tensor(2, scale_shape, elem=source, low=0, high=0 if source in FLOATS else 1)
    return n.case([x, scale, zero], attrs)


@recipe
def dynamic_quantize_linear(n: NodeDraw) -> NodeCase:
    return n.case([n.tensor(0, n.shape(), low=-4, high=4)])


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("MatMulInteger", matmul_integer)
    recipes.add("QLinearMatMul", qlinear_matmul)
    recipes.add("QuantizeLinear", quantize_linear)
    recipes.add("DequantizeLinear", dequantize_linear)
    recipes.add("DynamicQuantizeLinear", dynamic_quantize_linear)
