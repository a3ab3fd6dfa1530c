"""Rule for Dropout: output as the data; the mask has the data's shape (its type before
version 10, bool from 10 on)."""

from __future__ import annotations

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import dim_product
from onnxcraft.types import Tensor, ValueType

__all__ = ["register"]


def _check_scalar(ctx: InferenceContext, index: int, arg: str) -> None:
    shape = ctx.shape(index) if ctx.has_input(index) else None
    if shape is None:
        return
    count = dim_product(shape)
    if len(shape) > 1 or (count is not None and count != 1):
        raise ctx.fail(f"{arg} must be a scalar, got shape {list(shape)}")


def _dropout(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    if ctx.op.since_version >= 12:
        _check_scalar(ctx, 1, "ratio")
        _check_scalar(ctx, 2, "training_mode")
    else:
        ratio = float(ctx.attr("ratio", 0.5))
        if not 0.0 <= ratio <= 1.0:
            raise ctx.fail(f"ratio must lie in [0, 1], got {ratio}")
    outputs: list[ValueType | None] = [Tensor(elem, shape)]
    if ctx.num_outputs > 1:
        mask_elem = ElementType.BOOL if ctx.op.since_version >= 10 else elem
        outputs.append(Tensor(mask_elem, shape))
    return outputs


def register(rules: RuleRegistry) -> None:
    rules.add("Dropout", _dropout, since=ALL_VERSIONS)
