"""The rule of FlexAttention (ai.onnx.preview opset 1).

Q, K, V are rank-4 ``(B, H, L, E)``; Y is ``(B, H_q, L_q, E_v)`` of Q's type. A score_mod or
prob_mod body must return one tensor of the softmax precision (float32 unless the inputs are
double or ``softmax_precision`` says otherwise).
"""

from __future__ import annotations

from typing import Any

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.attention.rules import agree, check_rank, heads_divide
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]

_DOMAIN = "ai.onnx.preview"


def _softmax_type(ctx: InferenceContext) -> ElementType | None:
    chosen = ctx.attr("softmax_precision")
    if chosen is not None:
        allowed = (ElementType.FLOAT, ElementType.FLOAT16, ElementType.DOUBLE, ElementType.BFLOAT16)
        if chosen not in allowed:
            raise ctx.fail(
                f"softmax_precision must be one of {[int(a) for a in allowed]} "
                f"(float, float16, double, bfloat16); got {chosen}"
            )
        return ElementType(chosen)
    elem = ctx.elem(0)
    if elem is None:
        return None
    return ElementType.DOUBLE if elem == ElementType.DOUBLE else ElementType.FLOAT


def _check_body(ctx: InferenceContext, name: str, expected: ElementType | None) -> None:
    """A modifier body returns exactly one tensor of the softmax precision."""
    outputs: Any = ctx.bodies.get(name)
    if outputs is None:
        return
    if len(outputs) != 1:
        raise ctx.fail(f"{name} must return exactly one tensor; it returns {len(outputs)}")
    out = outputs[0]
    if not isinstance(out, Tensor):
        return
    if expected is not None and out.elem_type is not None and out.elem_type != expected:
        raise ctx.fail(
            f"{name} must return {expected.name.lower()} (the softmax precision); "
            f"it returns {out.elem_type.name.lower()}"
        )
    if out.shape is not None and len(out.shape) != 4:
        raise ctx.fail(f"{name} must return a rank-4 tensor; it returns shape {list(out.shape)}")


def _flex_attention(ctx: InferenceContext) -> list[ValueType | None]:
    unknown: tuple[Dim, ...] = (None,) * 4
    q = check_rank(ctx, 0, "Q", (4,)) or unknown
    k = check_rank(ctx, 1, "K", (4,)) or unknown
    v = check_rank(ctx, 2, "V", (4,)) or unknown
    batch = agree(ctx, "batch sizes", [("Q", q[0]), ("K", k[0]), ("V", v[0])])
    kv_heads = agree(ctx, "key/value head counts", [("K", k[1]), ("V", v[1])])
    agree(ctx, "key/value sequence lengths", [("K", k[2]), ("V", v[2])])
    agree(ctx, "Q/K head sizes", [("Q", q[3]), ("K", k[3])])
    heads_divide(ctx, q[1], kv_heads)
    work = _softmax_type(ctx)
    _check_body(ctx, "score_mod", work)
    _check_body(ctx, "prob_mod", work)
    return [Tensor(ctx.elem(0), (batch, q[1], q[2], v[3]))]


def register(rules: RuleRegistry) -> None:
    rules.add("FlexAttention", _flex_attention, since=ALL_VERSIONS, domain=_DOMAIN)
