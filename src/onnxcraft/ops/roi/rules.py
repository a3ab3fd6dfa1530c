"""Rules for RoiAlign and MaxRoiPool: one pooled (C, H', W') map per region of interest."""

from __future__ import annotations

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.windows import require_rank, unify_dim
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]


def _positive(ctx: InferenceContext, name: str, value: int) -> int:
    if value < 1:
        raise ctx.fail(f"{name} must be positive, got {value}")
    return value


def _regions(ctx: InferenceContext, index: int, corners: int) -> Dim:
    """The number of regions, from rois (num_rois, ``corners``)."""
    shape = require_rank(ctx, index, "rois", exactly=2)
    if shape is None:
        return None
    unify_dim(ctx, shape[1], corners, f"rois must have shape (num_rois, {corners}), dim 1")
    return shape[0]


def _roi_align(ctx: InferenceContext) -> list[ValueType | None]:
    x_shape = require_rank(ctx, 0, "X", exactly=4)
    regions = _regions(ctx, 1, 4)
    indices = require_rank(ctx, 2, "batch_indices", exactly=1)
    if indices is not None:
        regions = unify_dim(
            ctx, regions, indices[0], "batch_indices must have one entry per region of rois"
        )
    height = _positive(ctx, "output_height", int(ctx.attr("output_height", 1)))
    width = _positive(ctx, "output_width", int(ctx.attr("output_width", 1)))
    channels = None if x_shape is None else x_shape[1]
    return [Tensor(ctx.elem(0), (regions, channels, height, width))]


def _max_roi_pool(ctx: InferenceContext) -> list[ValueType | None]:
    x_shape = require_rank(ctx, 0, "X", exactly=4)
    regions = _regions(ctx, 1, 5)
    pooled = ctx.attr("pooled_shape")
    if not pooled or len(pooled) != 2:
        raise ctx.fail(f"pooled_shape must be two positive ints (height, width), got {pooled}")
    height, width = (_positive(ctx, "pooled_shape", int(v)) for v in pooled)
    channels = None if x_shape is None else x_shape[1]
    return [Tensor(ctx.elem(0), (regions, channels, height, width))]


def register(rules: RuleRegistry) -> None:
    rules.add("RoiAlign", _roi_align, since=ALL_VERSIONS)
    rules.add("MaxRoiPool", _max_roi_pool, since=ALL_VERSIONS)
