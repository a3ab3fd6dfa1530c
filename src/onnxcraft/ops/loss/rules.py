"""Rules for NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.

Scores are (N, C, d1..dk) and targets (N, d1..dk): the loss has the targets' shape with
``reduction="none"`` and is a scalar otherwise; SoftmaxCrossEntropyLoss's optional log_prob has
the scores' shape.
"""

from __future__ import annotations

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.windows import require_rank, show_shape, unify_dim
from onnxcraft.types import Dim, Shape, Tensor, ValueType

__all__ = ["register"]

REDUCTIONS = ("none", "sum", "mean")


def _per_element_shape(ctx: InferenceContext, scores: Shape, target: Shape) -> Shape:
    """(N, d1..dk): the target's shape, checked against (and completed from) the scores'."""
    if scores is None:
        return target
    expected: tuple[Dim, ...] = (scores[0], *scores[2:])
    if target is None:
        return expected
    if len(target) != len(expected):
        raise ctx.fail(
            f"target must have shape (N, d1..dk) = {show_shape(expected)} for scores "
            f"{show_shape(scores)}, got {show_shape(target)}"
        )
    return tuple(
        unify_dim(ctx, t, e, f"target must have shape {show_shape(expected)}, dim {axis}")
        for axis, (t, e) in enumerate(zip(target, expected))
    )


def _loss(ctx: InferenceContext) -> list[ValueType | None]:
    elem = ctx.elem(0)
    reduction = str(ctx.attr("reduction", "mean"))
    if reduction not in REDUCTIONS:
        raise ctx.fail(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")
    scores = require_rank(ctx, 0, "scores", at_least=2)
    target = ctx.shape(1)
    per_element = _per_element_shape(ctx, scores, target)
    if ctx.has_input(2):
        weight = require_rank(ctx, 2, "weight", exactly=1)
        if weight is not None and scores is not None:
            unify_dim(ctx, weight[0], scores[1], "weight must have one entry per class (C)")
    loss = Tensor(elem, per_element if reduction == "none" else ())
    if ctx.num_outputs > 1:  # SoftmaxCrossEntropyLoss's log_prob has the scores' shape
        return [loss, Tensor(elem, scores)]
    return [loss]


def register(rules: RuleRegistry) -> None:
    rules.add("NegativeLogLikelihoodLoss", _loss, since=ALL_VERSIONS)
    rules.add("SoftmaxCrossEntropyLoss", _loss, since=ALL_VERSIONS)
