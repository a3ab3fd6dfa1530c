"""Rules for NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss."""

from __future__ import annotations

from onnxcraft.core.types import Tensor, ValueType
from onnxcraft.infer.registry import ALL_VERSIONS, InferenceContext, RuleRegistry

__all__ = ["register"]


def _loss(ctx: InferenceContext) -> list[ValueType | None]:
    elem = ctx.elem(0)
    reduction = ctx.attr("reduction", "mean")
    loss = Tensor(elem, ctx.shape(1) if reduction == "none" else ())
    if ctx.num_outputs > 1:  # SoftmaxCrossEntropyLoss's log_prob has the scores' shape
        return [loss, Tensor(elem, ctx.shape(0))]
    return [loss]


def register(rules: RuleRegistry) -> None:
    rules.add("NegativeLogLikelihoodLoss", _loss, since=ALL_VERSIONS)
    rules.add("SoftmaxCrossEntropyLoss", _loss, since=ALL_VERSIONS)
