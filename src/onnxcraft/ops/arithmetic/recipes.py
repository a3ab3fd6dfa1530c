"""Recipes of the arithmetic family: strategies drawing valid nodes of Add, Sub, Mul, Div, Pow, Mod,
Max, Min, Sum, Mean, every version.

Opsets 1-6 use the legacy ``broadcast``/``axis`` form of broadcasting.
"""

from __future__ import annotations

from onnxcraft.ops import strategies as ocst
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import FLOATS, NodeDraw, Recipe, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import binary

__all__ = ["register"]


@recipe
def mod(n: NodeDraw) -> NodeCase:
    a_shape, b_shape = n.draw(ocst.broadcastable_shapes(2)).input_shapes
    elem = n.elem("T")
    a = n.tensor(0, a_shape)
    b = n.tensor(1, b_shape, low=1, high=4)  # no division by zero
    fmod = 1 if elem in FLOATS else n.integer(0, 1)  # floats require fmod=1
    return n.case([a, b], n.attrs(fmod=fmod))


def variadic(*, low: float = -4, high: float = 4) -> Recipe:
    """1-3 inputs: equal shapes up to opset 6, broadcasting from opset 8."""

    @recipe
    def draw(n: NodeDraw) -> NodeCase:
        count = n.integer(1, 3)
        if n.version < 8:
            shapes = (n.shape(),) * count
        else:
            shapes = n.draw(ocst.broadcastable_shapes(count)).input_shapes
        return n.case([n.tensor(i, s, low=low, high=high) for i, s in enumerate(shapes)])

    return draw


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    for op_type in ("Add", "Sub", "Mul"):
        recipes.add(op_type, binary())
    recipes.add("Div", binary(b_low=1, b_high=4))
    recipes.add("Pow", binary(a_low=0, a_high=3, b_low=0, b_high=3))
    recipes.add("Mod", mod)
    for op_type in ("Max", "Min", "Sum", "Mean"):
        recipes.add(op_type, variadic())
