"""Operator input recipes: for every operator version, a strategy drawing a valid node.

``node_cases(spec)`` is the entry point. A recipe sits beside its operator's rule and kernel,
in ``onnxcraft/ops/<family>/recipes.py``, whose ``register(recipes)`` adds it to a
:class:`~onnxcraft.ops.recipe_api.RecipeRegistry`; the table is filled from every family on
first use. Every operator version in the specs either has a recipe or is in :data:`EXCLUDED`
with the reason.
"""

from __future__ import annotations

from functools import cache

from hypothesis import strategies as st

from onnxcraft import ops
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, Recipe, RecipeRegistry, recipe
from onnxcraft.specs.model import OpSpec

__all__ = [
    "EXCLUDED",
    "NodeDraw",
    "Recipe",
    "RecipeRegistry",
    "exclusion_reason",
    "node_cases",
    "recipe",
    "recipe_for",
    "recipes",
]

# Operator versions without a recipe, and why: keyed by (domain, op_type) for every version
# of an operator, or by (domain, op_type, since_version) for one version.
EXCLUDED: dict[tuple[str, str] | tuple[str, str, int], str] = {
    ("", "Scatter", 11): "deprecated at its own version: no valid node exists",
    ("", "Upsample", 10): "deprecated at its own version: no valid node exists",
    ("", "GroupNormalization", 18): "deprecated at its own version: no valid node exists",
    ("ai.onnx.ml", "TreeEnsembleClassifier", 5): (
        "deprecated at its own version: no valid node exists"
    ),
    ("ai.onnx.ml", "TreeEnsembleRegressor", 5): (
        "deprecated at its own version: no valid node exists"
    ),
}


def exclusion_reason(spec: OpSpec) -> str | None:
    """Why ``spec`` has no recipe, if it is excluded."""
    return EXCLUDED.get(spec.key) or EXCLUDED.get((spec.domain, spec.name))


@cache
def recipes() -> RecipeRegistry:
    """(domain, op_type) -> recipe, from every family's ``recipes.py`` (loaded on first use)."""
    table = RecipeRegistry()
    ops.load("recipes", table)
    return table


def recipe_for(spec: OpSpec) -> Recipe | None:
    """The recipe of an operator version, None when it has none (see :data:`EXCLUDED`)."""
    if exclusion_reason(spec) is not None:
        return None
    return recipes().get((spec.domain, spec.name))


def node_cases(spec: OpSpec) -> st.SearchStrategy[NodeCase]:
    """Valid nodes of ``spec``: inputs within its type constraints, shapes that fit, attributes."""
    found = recipe_for(spec)
    if found is None:
        reason = exclusion_reason(spec) or "no recipe written"
        raise LookupError(
            f"{spec.domain or 'ai.onnx'}::{spec.name}-{spec.since_version} has no recipe: {reason}"
        )
    return found(spec)
