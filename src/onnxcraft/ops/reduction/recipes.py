"""Recipes of the reduction family: strategies drawing valid nodes of CumSum, TopK, ReduceSum,
ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSumExp,
ReduceLogSum, ArgMax, ArgMin, every version."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, Recipe, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import cumulative, shape_with_nonempty_axis

__all__ = ["register"]


@recipe
def top_k(n: NodeDraw) -> NodeCase:
    shape, axis = shape_with_nonempty_axis(n)
    # TopK-1's k is an attribute, which onnx's checker wants positive; k = 0 as an input is valid
    k = n.integer(1 if n.version == 1 else 0, shape[axis])
    x = n.tensor(0, shape)  # ties go to the lower index, as the standard says
    attrs = {"axis": axis, **n.attrs(largest=st.sampled_from([0, 1]), sorted=1)}
    if n.version == 1:
        return n.case([x], {**attrs, "k": k, "axis": axis % len(shape)})
    return n.case([x, n.ints([k])], attrs)


_FLAG = st.sampled_from([0, 1])


def reduce(*, low: float = -4, high: float = 4) -> Recipe:
    """Reduce over drawn axes, all axes, or (axes as input) none with noop_with_empty_axes."""

    @recipe
    def draw(n: NodeDraw) -> NodeCase:
        # Empty reductions are defined (the identity of the reduction) from opset 18 on.
        shape = n.shape(min_side=0 if n.version >= 18 else 1)
        x = n.tensor(0, shape, low=low, high=high)
        axes = n.axes(len(shape), min_size=1) if shape and n.flag() else None
        attrs: dict[str, Any] = n.attrs(keepdims=_FLAG)
        if "axes" in n.attribute_names:
            return n.case([x], attrs if axes is None else {**attrs, "axes": axes})
        attrs.update(n.attrs(noop_with_empty_axes=_FLAG))
        axes_input: Input | None = None
        if axes is not None:
            axes_input = n.ints(axes)
        elif n.flag():
            axes_input = n.ints([])  # empty: all axes, or none with noop_with_empty_axes
        return n.case([x, axes_input], attrs)

    return draw


@recipe
def arg_reduce(n: NodeDraw) -> NodeCase:
    shape = list(n.shape(min_dims=1))
    axis = n.axis(len(shape)) if n.version >= 11 else n.integer(0, len(shape) - 1)
    shape[axis] = max(shape[axis], 1)
    x = n.tensor(0, tuple(shape), low=-2, high=2)
    attrs = n.attrs(keepdims=_FLAG, select_last_index=_FLAG)
    return n.case([x], {"axis": axis, **attrs})


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("CumSum", cumulative)
    recipes.add("TopK", top_k)
    for op_type in (
        "ReduceSum",
        "ReduceMean",
        "ReduceMax",
        "ReduceMin",
        "ReduceProd",
        "ReduceL1",
        "ReduceL2",
        "ReduceSumSquare",
        "ReduceLogSumExp",
    ):
        recipes.add(op_type, reduce())
    recipes.add("ReduceLogSum", reduce(low=0.5, high=4))
    recipes.add("ArgMax", arg_reduce)
    recipes.add("ArgMin", arg_reduce)
