"""Rules for the activations: elementwise ones keep the input's type; PRelu broadcasts its slope
into the input; SwiGLU multiplies two inputs of one shape."""

from __future__ import annotations

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import broadcast
from onnxcraft.ops.math_unary.rules import same_type
from onnxcraft.types import Tensor, ValueType

__all__ = ["register"]

_SAME_TYPE = (
    "Celu",
    "Clip",
    "Elu",
    "Gelu",
    "HardSigmoid",
    "HardSwish",
    "LeakyRelu",
    "Mish",
    "Relu",
    "Selu",
    "Shrink",
    "Sigmoid",
    "Softplus",
    "Softsign",
    "Swish",
    "ThresholdedRelu",
)


def _softmax_like(ctx: InferenceContext) -> list[ValueType | None]:
    """Softmax, LogSoftmax, Hardmax: X's type, once ``axis`` is known to be one of X's axes
    (a scalar has none)."""
    x = ctx.tensor(0)
    if x is None:
        return [None]
    if x.shape is not None:
        # Before opset 13 the default axis is 1 and X is seen as 2-D from there on.
        default = 1 if ctx.op.since_version < 13 else -1
        axis = int(ctx.attr("axis", default))
        rank = len(x.shape)
        # Before opset 11 X is coerced to 2-D at axis, so only a scalar is out of range.
        checked = ctx.op.since_version >= 11
        if rank == 0:
            raise ctx.fail(f"input 'input' must have rank >= 1 (axis={axis}), got a scalar")
        if checked and not -rank <= axis < rank:
            raise ctx.fail(
                f"axis={axis} is out of range for input 'input' of rank {rank} "
                f"(expected an axis in [{-rank}, {rank - 1}])"
            )
    return [Tensor(x.elem_type, x.shape)]


def _prelu(ctx: InferenceContext) -> list[ValueType | None]:
    x = ctx.tensor(0)
    if x is None:
        return [None]
    if ctx.op.since_version < 7:
        return [Tensor(x.elem_type, x.shape)]  # the slope fits into X's shape
    # Unidirectional: the slope broadcasts into X, so the result has X's rank.
    shape = broadcast("PRelu", x.shape, ctx.shape(1), ("X", "slope"))
    if shape is not None and x.shape is not None and len(shape) != len(x.shape):
        raise ctx.fail(
            f"slope {list(ctx.shape(1) or ())} has a higher rank than X {list(x.shape)}: it "
            f"must broadcast into X"
        )
    return [Tensor(x.elem_type, shape if shape is not None else x.shape)]


def _swiglu(ctx: InferenceContext) -> list[ValueType | None]:
    # Y = Swish(A) * B with A and B of one shape (no broadcasting).
    a, b = ctx.shape(0), ctx.shape(1)
    if a is not None and b is not None:
        if len(a) != len(b):
            raise ctx.fail(f"A {list(a)} and B {list(b)} must have the same shape")
        for x, y in zip(a, b):
            if isinstance(x, int) and isinstance(y, int) and x != y:
                raise ctx.fail(f"A {list(a)} and B {list(b)} must have the same shape")
    return [Tensor(ctx.elem(0), a if a is not None else b)]


def register(rules: RuleRegistry) -> None:
    for name in _SAME_TYPE:
        rules.add(name, same_type, since=ALL_VERSIONS)
    for name in ("Softmax", "LogSoftmax", "Hardmax"):
        rules.add(name, _softmax_like, since=ALL_VERSIONS)
    rules.add("PRelu", _prelu, since=ALL_VERSIONS)
    rules.add("SwiGLU", _swiglu, since=ALL_VERSIONS)
