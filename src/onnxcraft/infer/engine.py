"""Running the inference of one node: its rule, else its function body, else its type constraints.

After the rule, a node whose inputs all have known small values and whose rule gave no value
is folded: the evaluator's kernel computes its outputs, so values keep flowing (data
propagation) through operators whose rules only know shapes. A folded value is kept only when
it agrees with the inferred type; anything the kernel cannot do simply leaves the value unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from onnxcraft.core import hooks
from onnxcraft.core.opinfo import OpInfo
from onnxcraft.infer.fallback import types_from_constraints
from onnxcraft.infer.rules import rule_for
from onnxcraft.ops.infer_api import InferenceContext
from onnxcraft.types import ValueType

__all__ = ["BodyInference", "infer_node", "infer_types", "rule_of", "set_body_inference"]

BodyInference = Callable[
    [OpInfo, Sequence[ValueType | None], Sequence[Any], dict[str, Any], int],
    tuple[list[ValueType | None], dict[int, Any]] | None,
]

# Inference through an operator's function body walks a graph, the graph walker's job
# (infer/graph.py, above this module): the `onnxcraft.infer` package sets it here when it loads.
_through_body: BodyInference | None = None


def set_body_inference(infer: BodyInference) -> None:
    """Let operators without a rule be inferred through their function bodies."""
    global _through_body
    _through_body = infer


def infer_types(
    op: OpInfo,
    input_types: Sequence[ValueType | None],
    input_values: Sequence[Any],
    attributes: dict[str, Any],
    num_outputs: int,
    opset: int,
    bodies: dict[str, Any] | None = None,
    present: Sequence[bool] | None = None,
) -> tuple[list[ValueType | None], dict[int, Any]]:
    """Output types (None: unknown) and known output values of one node.

    ``present`` tells which inputs the node gives (an input may be given yet of unknown
    type); by default an input is present when its type or value is known.
    """
    types, values, _ = infer_node(
        op, input_types, input_values, attributes, num_outputs, opset, bodies, present
    )
    return types, values


def rule_of(op: OpInfo) -> Any:
    """The rule :func:`infer_node` runs for ``op`` (None: it has none)."""
    return op.custom_rule if op.custom else rule_for(op)


def infer_node(
    op: OpInfo,
    input_types: Sequence[ValueType | None],
    input_values: Sequence[Any],
    attributes: dict[str, Any],
    num_outputs: int,
    opset: int,
    bodies: dict[str, Any] | None = None,
    present: Sequence[bool] | None = None,
    derived: dict[Any, Any] | None = None,
) -> tuple[list[ValueType | None], dict[int, Any], bool]:
    """:func:`infer_types`, and whether the answer may depend on what the known input values
    hold (beyond which inputs have one, and which of those are symbolic). ``derived``: the
    facts rules worked out from this operator version and these attributes at alike nodes
    (:attr:`InferenceContext.derived`)."""
    rule = op.custom_rule if op.custom else rule_for(op)
    if rule is None:
        valued = any(v is not None for v in input_values)
        if not op.custom and _through_body is not None:
            found = _through_body(op, input_types, input_values, attributes, num_outputs)
            if found is not None:
                return found[0], found[1], valued
        return types_from_constraints(op, input_types, num_outputs), {}, False
    ctx = InferenceContext(
        op, input_types, input_values, attributes, num_outputs, opset, bodies, present, derived
    )
    types = rule(ctx)
    if type(types) is not list or len(types) != num_outputs:
        types = list(types)[:num_outputs]
        types.extend([None] * (num_outputs - len(types)))
    values = ctx.output_values
    if len(values) < num_outputs and input_values and ctx.all_inputs_known():
        # Lazy: folding runs the evaluator's kernels, whose table loads on the first fold.
        from onnxcraft.infer.folding import fold  # noqa: PLC0415

        fold(ctx, types, opset)
    return types, values, ctx.read_values


# The DSL infers every operator call through this engine.
hooks.infer_types.fill(infer_types)
