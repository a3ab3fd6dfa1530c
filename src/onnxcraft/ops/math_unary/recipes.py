"""Recipes of the math unary family: strategies drawing valid nodes of Abs, Neg, Sign, Ceil, Floor,
Round, Tanh, Exp, Erf, Sin, Cos, Tan, Atan, Sinh, Cosh, Asinh, Reciprocal, Acos, Asin, Atanh, Log,
Sqrt, Acosh, every version."""

from __future__ import annotations

from onnxcraft.ops.recipe_api import RecipeRegistry
from onnxcraft.ops.recipe_common import unary

__all__ = ["register"]

_POSITIVE = {"low": 0.5, "high": 4}


_UNIT = {"low": -1, "high": 1}


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    for op_type in (
        "Abs",
        "Neg",
        "Sign",
        "Ceil",
        "Floor",
        "Round",
        "Tanh",
        "Exp",
        "Erf",
        "Sin",
        "Cos",
        "Tan",
        "Atan",
        "Sinh",
        "Cosh",
        "Asinh",
        "Reciprocal",
    ):
        recipes.add(op_type, unary())
    for op_type in ("Acos", "Asin", "Atanh"):
        recipes.add(op_type, unary(**_UNIT))
    for op_type in ("Log", "Sqrt"):
        recipes.add(op_type, unary(**_POSITIVE))
    recipes.add("Acosh", unary(low=1, high=4))
