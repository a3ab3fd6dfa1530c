"""Rule for NonMaxSuppression: a data-dependent number of (batch, class, box) index triples."""

from __future__ import annotations

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.windows import require_rank, unify_dim
from onnxcraft.types import Tensor, ValueType

__all__ = ["register"]


def _non_max_suppression(ctx: InferenceContext) -> list[ValueType | None]:
    boxes = require_rank(ctx, 0, "boxes", exactly=3)
    scores = require_rank(ctx, 1, "scores", exactly=3)
    if boxes is not None:
        unify_dim(ctx, boxes[2], 4, "boxes must have shape (batches, spatial, 4), dim 2")
    if boxes is not None and scores is not None:
        unify_dim(ctx, scores[0], boxes[0], "scores and boxes must have the same batch (dim 0)")
        unify_dim(
            ctx, scores[2], boxes[1], "scores dim 2 must be the number of boxes (boxes dim 1)"
        )
    center = int(ctx.attr("center_point_box", 0))
    if center not in (0, 1):
        raise ctx.fail(f"center_point_box must be 0 or 1, got {center}")
    # How many boxes survive depends on the data; each row is (batch, class, box).
    return [Tensor(ElementType.INT64, (None, 3))]


def register(rules: RuleRegistry) -> None:
    rules.add("NonMaxSuppression", _non_max_suppression, since=ALL_VERSIONS)
