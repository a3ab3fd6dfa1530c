"""Rules for RotaryEmbedding: the output has the input's type and shape."""

from __future__ import annotations

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.types import Tensor, ValueType

__all__ = ["register"]


def _rotary(ctx: InferenceContext) -> list[ValueType | None]:
    rank = ctx.rank(0)
    if rank is not None and rank not in (3, 4):
        raise ctx.fail(
            f"input X must be 3-D (batch, sequence, hidden) or 4-D (batch, heads, sequence, "
            f"head_size), got rank {rank}"
        )
    return [Tensor(ctx.elem(0), ctx.shape(0))]


def register(rules: RuleRegistry) -> None:
    rules.add("RotaryEmbedding", _rotary, since=ALL_VERSIONS)
