"""Rules for the elementwise math functions (Abs, Exp, Sin, ...): the input's type unchanged."""

from __future__ import annotations

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.types import ValueType

__all__ = ["register", "same_type"]

_UNARY = (
    "Abs",
    "Acos",
    "Acosh",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "Ceil",
    "Cos",
    "Cosh",
    "Erf",
    "Exp",
    "Floor",
    "Log",
    "Neg",
    "Reciprocal",
    "Round",
    "Sign",
    "Sin",
    "Sinh",
    "Sqrt",
    "Tan",
    "Tanh",
)


def same_type(ctx: InferenceContext) -> list[ValueType | None]:
    """One output of the first input's type."""
    return [ctx.input_types[0] if ctx.input_types else None]


def register(rules: RuleRegistry) -> None:
    for name in _UNARY:
        rules.add(name, same_type, since=ALL_VERSIONS)
