"""Recipes of the gradient family: strategies drawing valid nodes of Gradient, every version."""

from __future__ import annotations

from typing import Any

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]

_DOMAIN = "ai.onnx.preview.training"


@recipe
def gradient(n: NodeDraw) -> NodeCase:
    """The one graph a single node sees: y is one of its own inputs, so dy/dx is ones for
    that x and zeros for the others (each of its x's type and shape)."""
    count, held = n.integer(1, 2), n.integer(0, 1)
    floats = [ElementType.FLOAT, ElementType.DOUBLE, ElementType.FLOAT16]
    inputs = [
        n.tensor(i, n.shape(max_dims=2, max_side=3), elem=n.choice(floats), constant=False)
        for i in range(count + held)
    ]
    attrs: dict[str, Any] = {
        "xs": [f"in{i}" for i in range(count)],
        "y": f"in{n.integer(0, count - 1)}",
    }
    if held:
        attrs["zs"] = [f"in{count}"]  # named by the harness: input i is the graph value in{i}
    return n.case(inputs, attrs, outputs=count)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("Gradient", gradient, domain=_DOMAIN)
