"""Recipes of the constant family: strategies drawing valid nodes of ConstantOfShape, Range,
Constant, every version."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from onnxcraft import ir
from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


@recipe
def constant_of_shape(n: NodeDraw) -> NodeCase:
    dims = [n.integer(0, 3) for _ in range(n.integer(0, 3))]
    attrs = {}
    if n.flag():
        elem = n.elem("T2")
        attrs["value"] = n.array(elem, (1,), low=-2, high=2)
    return n.case([n.ints(dims)], attrs)


@recipe
def range_(n: NodeDraw) -> NodeCase:
    elem = n.elem("T")
    if numpy_dtype(elem).kind == "u":  # Range-27's unsigned types: nothing below zero
        start, delta = n.integer(0, 3), n.choice([1, 2, 3])
        limit = start + delta * n.integer(0, 4)
    else:
        start, delta = n.integer(-3, 3), n.choice([-2, -1, 1, 2, 3])
        limit = start + delta * n.integer(-1, 4)
    return n.case([n.scalar(v, elem) for v in (start, limit, delta)])


_SCALAR_FORMS = (
    "value_float",
    "value_floats",
    "value_int",
    "value_ints",
    "value_string",
    "value_strings",
)


@recipe
def constant(n: NodeDraw) -> NodeCase:
    forms = ["value"] + [f for f in ("sparse_value", *_SCALAR_FORMS) if f in n.attribute_names]
    form = n.choice(forms)
    if form == "value":
        return n.case([], {"value": n.array(n.elem("T"), n.shape(max_dims=3, max_side=3))})
    if form == "sparse_value":
        return n.case([], {"sparse_value": _sparse(n)})
    values: dict[str, Any] = {
        "value_float": st.floats(-4, 4, width=32),
        "value_floats": st.lists(st.floats(-4, 4, width=32), max_size=3),
        "value_int": st.integers(-4, 4),
        "value_ints": st.lists(st.integers(-4, 4), max_size=3),
        "value_string": st.text(max_size=3),
        "value_strings": st.lists(st.text(max_size=3), max_size=3),
    }
    return n.case([], {form: n.draw(values[form])})


def _sparse(n: NodeDraw) -> ir.SparseData:
    """A sparse tensor: sorted distinct linear indices into a small dense shape."""
    # onnx's checker wants positive dims and at least one stored value
    dims = n.shape(min_dims=1, max_dims=2, min_side=1, max_side=3)
    size = int(np.prod(dims))
    chosen = sorted(n.draw(st.sets(st.integers(0, size - 1), min_size=1, max_size=size)))
    elem = n.elem(
        "T", only={ElementType.FLOAT, ElementType.INT64, ElementType.DOUBLE, ElementType.INT32}
    )
    values = n.array(elem, (len(chosen),))
    indices = np.asarray(chosen, dtype=np.int64)
    return ir.SparseData(
        ir.TensorData.from_array("sparse_values", values, elem),
        ir.TensorData.from_array("sparse_indices", indices, ElementType.INT64),
        tuple(dims),
    )


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("ConstantOfShape", constant_of_shape)
    recipes.add("Range", range_)
    recipes.add("Constant", constant)
