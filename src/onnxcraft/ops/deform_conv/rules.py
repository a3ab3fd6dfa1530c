"""Rule for DeformConv: a convolution's output shape, with offset and mask checked against it."""

from __future__ import annotations

from onnxcraft.ops.conv.rules import conv_output_shape
from onnxcraft.ops.deform_conv.shapes import mask_channels, offset_channels
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import dim_product
from onnxcraft.ops.windows import require_rank, show_shape, unify_dim
from onnxcraft.types import Dim, Shape, Tensor, ValueType

__all__ = ["register"]


def _check_per_position(
    ctx: InferenceContext, index: int, arg: str, expected: tuple[Dim, ...]
) -> None:
    """offset / mask: (N, channels, *output spatial dims), compared dim by dim where known."""
    shape = require_rank(ctx, index, arg, exactly=len(expected))
    if shape is None:
        return
    for got, want in zip(shape, expected):
        unify_dim(ctx, got, want, f"{arg} must have shape {show_shape(expected)}")


def _deform_conv(ctx: InferenceContext) -> list[ValueType | None]:
    shape = conv_output_shape(ctx, 0, 1)
    if shape is None:
        return [Tensor(ctx.elem(0), None)]
    nd = len(shape) - 2
    w_shape: Shape = ctx.shape(1)
    offset_group = int(ctx.attr("offset_group", 1))
    x_shape = ctx.shape(0)
    channels = None if x_shape is None else x_shape[1]
    if offset_group < 1 or (isinstance(channels, int) and channels % offset_group):
        raise ctx.fail(
            f"offset_group={offset_group} must be positive and divide the {channels} channels of X"
        )
    taps = None if w_shape is None else dim_product(w_shape[2:])
    per_tap = None if taps is None else mask_channels(offset_group, taps)
    offsets = None if taps is None else offset_channels(offset_group, taps, nd)
    _check_per_position(ctx, 2, "offset", (shape[0], offsets, *shape[2:]))
    if ctx.has_input(3):
        bias = require_rank(ctx, 3, "B", exactly=1)
        if bias is not None:
            unify_dim(ctx, bias[0], shape[1], "bias B must have one entry per output channel")
    if ctx.has_input(4):
        _check_per_position(ctx, 4, "mask", (shape[0], per_tap, *shape[2:]))
    return [Tensor(ctx.elem(0), shape)]


def register(rules: RuleRegistry) -> None:
    rules.add("DeformConv", _deform_conv, since=ALL_VERSIONS)
