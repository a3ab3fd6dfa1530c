"""Recipes of the tensor ops family: strategies drawing valid nodes of CumProd, Pad, EyeLike,
DepthToSpace, SpaceToDepth, Trilu, OneHot, Compress, NonZero, Unique, ReverseSequence, Einsum,
BitCast, every version."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops import strategies as ocst
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import FLOATS, NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import cumulative

__all__ = ["register"]


def _pads_for(n: NodeDraw, dims: list[int], mode: str) -> list[int]:
    """Begin pads then end pads for ``dims``, valid for ``mode``."""
    begins, ends = [], []
    for dim in dims:
        if mode == "reflect":
            limit = max(dim - 1, 0)
            pair = [n.integer(0, min(limit, 2)), n.integer(0, min(limit, 2))]
        elif mode == "edge":
            pair = [n.integer(0, 2), n.integer(0, 2)] if dim else [0, 0]
        elif mode == "wrap":
            pair = [n.integer(0, min(dim, 2)), n.integer(0, min(dim, 2))]
        else:
            crop = n.integer(0, min(dim, 1))  # a negative pad crops, within the dim
            pair = [n.integer(0, 2), -crop if n.flag() else n.integer(0, 2)]
        begins.append(pair[0])
        ends.append(pair[1])
    return begins + ends


@recipe
def pad(n: NodeDraw) -> NodeCase:
    modes = ["constant", "reflect", "edge"] + (["wrap"] if n.version >= 19 else [])
    mode = n.choice(modes)
    shape = n.shape(min_dims=1, min_side=1 if mode == "reflect" else 0)
    x = n.tensor(0, shape)
    if n.version < 11:
        pads = _pads_for(n, list(shape), mode)
        name = "paddings" if n.version == 1 else "pads"
        return n.case(
            [x], {name: pads, "mode": mode, **n.attrs(value=st.sampled_from([None, 1.5]))}
        )
    axes = n.axes(len(shape), min_size=1) if n.version >= 18 and n.flag() else None
    dims = list(shape) if axes is None else [shape[a] for a in axes]
    value = n.tensor(2, (), low=1, high=1) if mode == "constant" and n.flag() else None
    axes_in = None if axes is None else n.ints(axes, elem=n.elem("Tind"))
    return n.case([x, n.ints(_pads_for(n, dims, mode)), value, axes_in], {"mode": mode})


@recipe
def eye_like(n: NodeDraw) -> NodeCase:
    x = n.tensor(0, n.shape(min_dims=2, max_dims=2))
    attrs = n.attrs(k=st.integers(-3, 3))
    if n.flag():
        attrs["dtype"] = int(n.elem("T2"))
    return n.case([x], attrs)


@recipe
def depth_to_space(n: NodeDraw) -> NodeCase:
    block = n.integer(1, 2)
    shape = (n.integer(0, 2), block * block * n.integer(1, 2), n.integer(0, 3), n.integer(0, 3))
    attrs = {"blocksize": block, **n.attrs(mode=st.sampled_from(["DCR", "CRD"]))}
    return n.case([n.tensor(0, shape)], attrs)


@recipe
def space_to_depth(n: NodeDraw) -> NodeCase:
    block = n.integer(1, 2)
    shape = (n.integer(0, 2), n.integer(1, 3), block * n.integer(0, 2), block * n.integer(0, 2))
    attrs = {"blocksize": block, **n.attrs(mode=st.sampled_from(["DCR", "CRD"]))}
    return n.case([n.tensor(0, shape)], attrs)


@recipe
def trilu(n: NodeDraw) -> NodeCase:
    x = n.tensor(0, n.shape(min_dims=2))
    k = n.scalar(n.integer(-3, 3), ElementType.INT64) if n.flag() else None
    return n.case([x, k], n.attrs(upper=st.sampled_from([0, 1])))


@recipe
def one_hot(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=1, max_dims=3)  # onnx's inference wants indices of rank >= 1
    depth = n.integer(1, 4)
    # negative indices count from the end from OneHot-11 on (onnx's inference refuses them before)
    indices = n.tensor(0, shape, low=-depth if n.version >= 11 else 0, high=depth - 1)
    depth_in = n.scalar(depth, n.elem("T2"), rank=n.choice([0, 1]))
    values = n.tensor(2, (2,))
    axis = n.integer(-len(shape) - 1, len(shape))
    return n.case([indices, depth_in, values], {"axis": axis})


@recipe
def compress(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=1)
    axis = n.axis(len(shape)) if n.flag() else None
    limit = math.prod(shape) if axis is None else shape[axis]
    length = n.integer(0, limit)
    condition = n.given(
        np.asarray(n.draw(st.lists(st.booleans(), min_size=length, max_size=length)), dtype=bool)
    )
    return n.case([n.tensor(0, shape), condition], {} if axis is None else {"axis": axis})


@recipe
def non_zero(n: NodeDraw) -> NodeCase:
    return n.case([n.tensor(0, n.shape(min_dims=1), low=-1, high=1)])


@recipe
def unique(n: NodeDraw) -> NodeCase:
    shape = n.shape(max_dims=3, max_side=3)
    x = n.tensor(0, shape, low=-2, high=2)  # few values: many repeats
    attrs = n.attrs(sorted=st.sampled_from([0, 1]))
    if shape and n.flag():
        attrs["axis"] = n.axis(len(shape))
    return n.case([x], attrs)


@recipe
def reverse_sequence(n: NodeDraw) -> NodeCase:
    shape = list(n.shape(min_dims=2, max_side=3))
    time_axis = n.integer(0, 1)
    batch_axis = 1 - time_axis
    shape[time_axis] = max(shape[time_axis], 1)
    lengths = [n.integer(1, shape[time_axis]) for _ in range(shape[batch_axis])]
    attrs = {"time_axis": time_axis, "batch_axis": batch_axis}
    return n.case([n.tensor(0, tuple(shape)), n.ints(lengths)], attrs)


# (equation, operand subscripts) with an ellipsis standing for broadcast batch dims.
_EINSUM = (
    "ij,jk->ik",
    "ij->ji",
    "ii->i",
    "ii",
    "ij->",
    "i,i->",
    "i,j->ij",
    "ij,jk",
    "bij,bjk->bik",
    "ij,ij->ij",
    "...ij,...jk->...ik",
    "...i->...",
)


@recipe
def einsum(n: NodeDraw) -> NodeCase:
    equation = n.choice(_EINSUM)
    sizes = {letter: n.integer(1, 3) for letter in "bijk"}
    operands = equation.split("->")[0].split(",")
    batch = n.draw(ocst.broadcastable_shapes(len(operands), max_dims=2, max_side=2))
    inputs = []
    for i, subscripts in enumerate(operands):
        dims = [sizes[c] for c in subscripts.replace("...", "")]
        prefix = batch.input_shapes[i] if "..." in subscripts else ()
        inputs.append(n.tensor(i, (*prefix, *dims), low=-2, high=2))
    return n.case(inputs, {"equation": equation})


_BITS = {
    **dict.fromkeys(("UINT2", "INT2"), 2),
    **dict.fromkeys(("UINT4", "INT4", "FLOAT4E2M1"), 4),
    **dict.fromkeys(
        (
            "UINT8",
            "INT8",
            "BOOL",
            "FLOAT8E4M3FN",
            "FLOAT8E4M3FNUZ",
            "FLOAT8E5M2",
            "FLOAT8E5M2FNUZ",
            "FLOAT8E8M0",
        ),
        8,
    ),
    **dict.fromkeys(("UINT16", "INT16", "FLOAT16", "BFLOAT16"), 16),
    **dict.fromkeys(("UINT32", "INT32", "FLOAT"), 32),
    **dict.fromkeys(("UINT64", "INT64", "DOUBLE", "COMPLEX64"), 64),
    "COMPLEX128": 128,
}


@recipe
def bit_cast(n: NodeDraw) -> NodeCase:
    source = n.elem("T1")
    width = _BITS[source.name]
    targets = [e for e in n.tensor_elems("T2") if _BITS.get(e.name) == width]
    target = n.bind("T2", n.choice(targets))
    x = n.tensor(0, n.shape(), low=None, high=None) if source in FLOATS else n.tensor(0, n.shape())
    return n.case([x], {"to": int(target)})


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("CumProd", cumulative)
    recipes.add("Pad", pad)
    recipes.add("EyeLike", eye_like)
    recipes.add("DepthToSpace", depth_to_space)
    recipes.add("SpaceToDepth", space_to_depth)
    recipes.add("Trilu", trilu)
    recipes.add("OneHot", one_hot)
    recipes.add("Compress", compress)
    recipes.add("NonZero", non_zero)
    recipes.add("Unique", unique)
    recipes.add("ReverseSequence", reverse_sequence)
    recipes.add("Einsum", einsum)
    recipes.add("BitCast", bit_cast)
