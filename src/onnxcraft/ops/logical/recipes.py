"""Recipes of the logical family: strategies drawing valid nodes of Not, BitwiseNot, IsNaN, IsInf,
BitwiseAnd, BitwiseOr, BitwiseXor, And, Or, Xor, Equal, Greater, Less, GreaterOrEqual, LessOrEqual,
BitShift, Where, every version."""

from __future__ import annotations

from hypothesis import strategies as st

from onnxcraft.ops import strategies as ocst
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import binary, unary

__all__ = ["register"]


@recipe
def bit_shift(n: NodeDraw) -> NodeCase:
    a_shape, b_shape = n.draw(ocst.broadcastable_shapes(2)).input_shapes
    x = n.tensor(0, a_shape, low=0, high=15)
    y = n.tensor(1, b_shape, low=0, high=3)  # shifts smaller than every width
    return n.case([x, y], n.attrs(direction=st.sampled_from(["LEFT", "RIGHT"])))


@recipe
def where(n: NodeDraw) -> NodeCase:
    shapes = n.draw(ocst.broadcastable_shapes(3)).input_shapes
    cond = n.tensor(0, shapes[0])
    return n.case([cond, n.tensor(1, shapes[1]), n.tensor(2, shapes[2])])


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    for op_type in ("Not", "BitwiseNot", "IsNaN"):
        recipes.add(op_type, unary())
    recipes.add(
        "IsInf",
        unary(detect_negative=st.sampled_from([0, 1]), detect_positive=st.sampled_from([0, 1])),
    )
    for op_type in (
        "BitwiseAnd",
        "BitwiseOr",
        "BitwiseXor",
        "And",
        "Or",
        "Xor",
        "Equal",
        "Greater",
        "Less",
        "GreaterOrEqual",
        "LessOrEqual",
    ):
        recipes.add(op_type, binary())
    recipes.add("BitShift", bit_shift)
    recipes.add("Where", where)
