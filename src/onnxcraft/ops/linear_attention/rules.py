"""The rule of LinearAttention (opset 27).

query/key/value are packed ``(B, T, heads * size)``; the outputs are ``output (B, T, H_q * d_v)``
and ``present_state (B, H_kv, d_k, d_v)``. The head counts are attributes, so the per-head sizes
follow from static hidden sizes, or from past_state.
"""

from __future__ import annotations

from onnxcraft.ops.attention.rules import agree, check_rank, heads_divide, split_heads
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import entry_mul
from onnxcraft.types import Dim, Shape, Tensor, ValueType

__all__ = ["register"]

_GATED = ("gated", "gated_delta")
_DELTA = ("delta", "gated_delta")


def _head_counts(ctx: InferenceContext) -> tuple[int, int]:
    q_heads, kv_heads = ctx.attr("q_num_heads"), ctx.attr("kv_num_heads")
    if q_heads is None or kv_heads is None:
        raise ctx.fail("the attributes q_num_heads and kv_num_heads are required")
    if q_heads <= 0 or kv_heads <= 0:
        raise ctx.fail(
            f"q_num_heads and kv_num_heads must be positive; got {q_heads} and {kv_heads}"
        )
    heads_divide(ctx, q_heads, kv_heads)
    return int(q_heads), int(kv_heads)


def _check_rule_inputs(ctx: InferenceContext) -> str:
    rule = ctx.attr("update_rule", "gated_delta")
    if rule not in ("linear", "gated", "delta", "gated_delta"):
        raise ctx.fail(f"update_rule must be linear, gated, delta or gated_delta; got {rule!r}")
    if rule in _GATED and not ctx.has_input(4):
        raise ctx.fail(f"update_rule={rule!r} requires the decay input")
    if rule in _DELTA and not ctx.has_input(5):
        raise ctx.fail(f"update_rule={rule!r} requires the beta input")
    return str(rule)


def _check_last(ctx: InferenceContext, name: str, shape: Shape, allowed: list[Dim]) -> None:
    """A static last dim of ``name`` must be one of the static ``allowed`` sizes."""
    last = None if shape is None else shape[2]
    options = [a for a in allowed if isinstance(a, int)]
    if isinstance(last, int) and len(options) == len(allowed) and last not in options:
        raise ctx.fail(f"{name}'s last dimension must be one of {options}; got {last}")


def _linear_attention(ctx: InferenceContext) -> list[ValueType | None]:
    q_heads, kv_heads = _head_counts(ctx)
    _check_rule_inputs(ctx)
    none3: tuple[Dim, ...] = (None,) * 3
    q = check_rank(ctx, 0, "query", (3,))
    k = check_rank(ctx, 1, "key", (3,))
    v = check_rank(ctx, 2, "value", (3,))
    past = check_rank(ctx, 3, "past_state", (4,)) or (None,) * 4
    decay = check_rank(ctx, 4, "decay", (3,))
    beta = check_rank(ctx, 5, "beta", (3,))
    q3, k3, v3 = q or none3, k or none3, v or none3
    sources = [
        ("query", q3),
        ("key", k3),
        ("value", v3),
        ("decay", decay or none3),
        ("beta", beta or none3),
    ]
    batch = agree(ctx, "batch sizes", [(n, s[0]) for n, s in sources] + [("past_state", past[0])])
    length = agree(ctx, "sequence lengths", [(n, s[1]) for n, s in sources])
    agree(ctx, "key/value head counts", [("kv_num_heads", kv_heads), ("past_state", past[1])])
    d_k = agree(
        ctx,
        "key head sizes",
        [
            ("query", split_heads(ctx, "query", q3[2], q_heads, "q_num_heads")),
            ("key", split_heads(ctx, "key", k3[2], kv_heads, "kv_num_heads")),
            ("past_state", past[2]),
        ],
    )
    d_v = agree(
        ctx,
        "value head sizes",
        [
            ("value", split_heads(ctx, "value", v3[2], kv_heads, "kv_num_heads")),
            ("past_state", past[3]),
        ],
    )
    _check_last(ctx, "decay", decay, [entry_mul(kv_heads, d_k), kv_heads])
    _check_last(ctx, "beta", beta, [kv_heads, 1])
    # With as many query as key/value heads the output is as wide as value, even symbolically.
    hidden = entry_mul(q_heads, d_v)
    if hidden is None and q_heads == kv_heads:
        hidden = v3[2]
    state_elem = ctx.elem(3) if ctx.has_input(3) else ctx.elem(0)
    return [
        Tensor(ctx.elem(0), (batch, length, hidden)),
        Tensor(state_elem, (batch, kv_heads, d_k, d_v)),
    ]


def register(rules: RuleRegistry) -> None:
    rules.add("LinearAttention", _linear_attention, since=ALL_VERSIONS)
