"""Rule for Gradient (ai.onnx.preview.training): output i is dy/dx_i, typed as x_i.

The node's inputs are the values of ``xs`` then of ``zs``, so output i has the element type
and shape of input i, which must be a float tensor (the outputs' type constraint T2).
"""

from __future__ import annotations

from onnxcraft.dtypes import ElementType, type_string
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.types import Tensor, ValueType

__all__ = ["register"]

_DOMAIN = "ai.onnx.preview.training"
_FLOATS = frozenset({ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE})


def _gradient(ctx: InferenceContext) -> list[ValueType | None]:
    xs = list(ctx.attr("xs") or ())
    zs = list(ctx.attr("zs") or ())
    if not xs:
        raise ctx.fail("attribute xs is required: the names of the tensors to differentiate by")
    if len(ctx.input_types) != len(xs) + len(zs):
        raise ctx.fail(
            f"expects {len(xs) + len(zs)} inputs, the values of xs {xs} then of zs {zs}, "
            f"got {len(ctx.input_types)}"
        )
    if ctx.num_outputs > len(xs):
        raise ctx.fail(f"has {ctx.num_outputs} outputs but xs names {len(xs)} tensors")
    outputs: list[ValueType | None] = []
    for index in range(ctx.num_outputs):
        x = ctx.tensor(index)
        if x is None:
            outputs.append(None)
            continue
        if x.elem_type is not None and x.elem_type not in _FLOATS:
            raise ctx.fail(
                f"input {index} (the value of x {xs[index]!r}) must be a float16, float or "
                f"double tensor, got {type_string(x.elem_type)}"
            )
        outputs.append(Tensor(x.elem_type, x.shape))
    return outputs


def register(rules: RuleRegistry) -> None:
    rules.add("Gradient", _gradient, since=ALL_VERSIONS, domain=_DOMAIN)
