"""Rule for CausalConvWithState: (B, C, L) by a depthwise (C, 1, k) kernel, carrying k - 1 steps
of state."""

from __future__ import annotations

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.windows import require_rank, unify_dim
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]

ACTIVATIONS = ("none", "silu", "swish")


def _causal_conv_with_state(ctx: InferenceContext) -> list[ValueType | None]:
    elem = ctx.elem(0)
    activation = str(ctx.attr("activation", "none"))
    if activation not in ACTIVATIONS:
        raise ctx.fail(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
    x = require_rank(ctx, 0, "input", exactly=3)
    w = require_rank(ctx, 1, "weight", exactly=3)
    batch, channels, length = (None, None, None) if x is None else x
    kernel: Dim = None
    if w is not None:
        channels = unify_dim(ctx, w[0], channels, "weight must be (channels, 1, k), dim 0")
        unify_dim(ctx, w[1], 1, "weight must be depthwise (channels, 1, k), dim 1")
        kernel = w[2]
    if isinstance(kernel, int) and kernel < 1:
        raise ctx.fail(f"the kernel size (weight dim 2) must be positive, got {kernel}")
    if ctx.has_input(2):
        bias = require_rank(ctx, 2, "bias", exactly=1)
        if bias is not None:
            channels = unify_dim(ctx, bias[0], channels, "bias must have one entry per channel")
    state: Dim = kernel - 1 if isinstance(kernel, int) else None
    if ctx.has_input(3):
        past = require_rank(ctx, 3, "past_state", exactly=3)
        if past is not None:
            what = "past_state must be (batch, channels, k - 1)"
            batch = unify_dim(ctx, past[0], batch, f"{what}, dim 0")
            channels = unify_dim(ctx, past[1], channels, f"{what}, dim 1")
            state = unify_dim(ctx, past[2], state, f"{what}, dim 2")
    return [Tensor(elem, (batch, channels, length)), Tensor(elem, (batch, channels, state))]


def register(rules: RuleRegistry) -> None:
    rules.add("CausalConvWithState", _causal_conv_with_state, since=ALL_VERSIONS)
