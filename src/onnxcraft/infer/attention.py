"""Rules for Attention and RotaryEmbedding."""

from __future__ import annotations

from onnxcraft.core.types import Dim, Tensor, ValueType
from onnxcraft.infer.common import dim_sum
from onnxcraft.infer.registry import ALL_VERSIONS, InferenceContext, RuleRegistry

__all__ = ["register"]


def _heads(shape: tuple[Dim, ...], heads: int | None) -> tuple[Dim, Dim, Dim, Dim]:
    """(batch, heads, sequence, head_size) of a 3-D or 4-D Q/K/V shape."""
    if len(shape) == 4:
        return shape[0], shape[1], shape[2], shape[3]
    hidden = shape[2]
    size = hidden // heads if isinstance(hidden, int) and heads else None
    return shape[0], heads, shape[1], size


def _attention(ctx: InferenceContext) -> list[ValueType | None]:
    q, k, v = ctx.shape(0), ctx.shape(1), ctx.shape(2)
    elem = ctx.elem(0)
    if q is None or k is None or v is None:
        return [Tensor(elem, None)] * 4
    qh, kh = ctx.attr("q_num_heads"), ctx.attr("kv_num_heads")
    batch, q_heads, q_len, _ = _heads(q, qh)
    _, kv_heads, kv_len, head = _heads(k, kh)
    _, _, _, v_head = _heads(v, kh)
    past = ctx.shape(4)
    total = kv_len if past is None else dim_sum([past[2], kv_len])
    if len(q) == 3:
        hidden = q_heads * v_head if isinstance(q_heads, int) and isinstance(v_head, int) else None
        y = (batch, q_len, hidden)
    else:
        y = (batch, q_heads, q_len, v_head)
    return [
        Tensor(elem, y),
        Tensor(ctx.elem(1), (batch, kv_heads, total, head)),
        Tensor(ctx.elem(2), (batch, kv_heads, total, v_head)),
        Tensor(elem, (batch, q_heads, q_len, total)),
    ]


def _rotary(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ctx.elem(0), ctx.shape(0))]


def register(rules: RuleRegistry) -> None:
    rules.add("Attention", _attention, since=ALL_VERSIONS)
    rules.add("RotaryEmbedding", _rotary, since=ALL_VERSIONS)
