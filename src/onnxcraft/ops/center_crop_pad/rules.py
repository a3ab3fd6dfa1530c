"""Rule for CenterCropPad: the chosen axes take the sizes of the ``shape`` input."""

from __future__ import annotations

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import normalize_axis
from onnxcraft.ops.windows import require_rank
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]


def _center_crop_pad(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    target_shape = require_rank(ctx, 1, "shape", exactly=1)
    target = ctx.dims_value(1)  # entries may be symbols (a size taken from another shape)
    attr = ctx.attr("axes")
    if shape is None:
        # Without axes, shape lists every dim of the output.
        if not attr and target is not None:
            return [Tensor(elem, tuple(target))]
        return [Tensor(elem, None)]
    axes = (
        [normalize_axis(ctx, int(a), len(shape), "axes") for a in attr]
        if attr
        else list(range(len(shape)))
    )
    if len(set(axes)) != len(axes):
        raise ctx.fail(f"axes must not repeat an axis, got {list(attr)}")
    length = len(target) if target is not None else None
    if length is None and target_shape is not None and isinstance(target_shape[0], int):
        length = target_shape[0]
    if length is not None and length != len(axes):
        raise ctx.fail(f"shape must have {len(axes)} entries (one per axis), got {length}")
    if target is not None and any(isinstance(t, int) and t < 0 for t in target):
        raise ctx.fail(f"shape must be non-negative, got {list(target)}")
    dims: list[Dim] = list(shape)
    for i, axis in enumerate(axes):
        dims[axis] = None if target is None else target[i]
    return [Tensor(elem, tuple(dims))]


def register(rules: RuleRegistry) -> None:
    rules.add("CenterCropPad", _center_crop_pad, since=ALL_VERSIONS)
