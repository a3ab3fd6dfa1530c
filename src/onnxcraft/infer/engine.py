"""Running the inference rule of one node: the rule table, else the type constraints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from onnxcraft.core.opinfo import OpInfo
from onnxcraft.core.types import ValueType
from onnxcraft.infer.fallback import types_from_constraints
from onnxcraft.infer.registry import InferenceContext
from onnxcraft.infer.rules import default_rules

__all__ = ["infer_types"]


def infer_types(
    op: OpInfo,
    input_types: Sequence[ValueType | None],
    input_values: Sequence[Any],
    attributes: dict[str, Any],
    num_outputs: int,
    opset: int,
    bodies: dict[str, Any] | None = None,
) -> tuple[list[ValueType | None], dict[int, Any]]:
    """Output types (None: unknown) and known output values of one node."""
    if not op.rule_resolved:
        op.rule = (
            None if op.custom else default_rules().lookup(op.domain, op.op_type, op.since_version)
        )
        op.rule_resolved = True
    rule = op.rule
    if rule is None:
        return types_from_constraints(op, input_types, num_outputs), {}
    ctx = InferenceContext(op, input_types, input_values, attributes, num_outputs, opset, bodies)
    types = list(rule(ctx))
    if len(types) < num_outputs:
        types.extend([None] * (num_outputs - len(types)))
    return types[:num_outputs], ctx.output_values
