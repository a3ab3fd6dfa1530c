"""Rules for Conv, ConvInteger and QLinearConv: (N, C, D1..Dn) * (M, C/group, k1..kn)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.conv.shapes import group_mismatch
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, Rule, RuleRegistry
from onnxcraft.ops.infer_common import tensor
from onnxcraft.ops.windows import (
    require_rank,
    show_shape,
    static_window_output,
    unify_dim,
    weight_kernel,
    window_attributes,
    window_output_shape,
)
from onnxcraft.types import Dim, Shape, Tensor, ValueType

__all__ = [
    "conv_output_shape",
    "general_conv_shape",
    "register",
    "static_conv_attributes",
    "static_conv_shape",
]


@dataclass(frozen=True)
class _ConvInputs:
    """Where a convolution's data, weight and bias sit among the node's inputs."""

    x: int
    w: int
    bias: int | None


_CONV = _ConvInputs(x=0, w=1, bias=2)
_CONV_INTEGER = _ConvInputs(x=0, w=1, bias=None)
_QLINEAR_CONV = _ConvInputs(x=0, w=3, bias=8)


def _check_channels(
    ctx: InferenceContext, x_shape: Shape, w_shape: Shape, group: int, w_arg: str
) -> None:
    """C = W.shape[1] * group, and group divides both C and M."""
    c = _known(None if x_shape is None else x_shape[1])
    m = _known(None if w_shape is None else w_shape[0])
    per_group = _known(None if w_shape is None else w_shape[1])
    problem = group_mismatch(c, m, per_group, group)
    if problem == "input channels":
        raise ctx.fail(f"group={group} must divide the {c} input channels of X")
    if problem == "output channels":
        raise ctx.fail(f"group={group} must divide the {m} output channels of {w_arg} (dim 0)")
    if problem == "channels per group":
        assert per_group is not None
        raise ctx.fail(
            f"weight {w_arg} has {per_group} channels per group (dim 1), so X must have "
            f"{per_group} * group={group} = {per_group * group} channels, got {c}"
        )


def _known(dim: Dim) -> int | None:
    """A dim's value when it is a known number (symbols and unknown dims tell nothing here)."""
    return dim if isinstance(dim, int) else None


def _check_bias(ctx: InferenceContext, index: int | None, m: Dim) -> None:
    if index is None or not ctx.has_input(index):
        return
    shape = require_rank(ctx, index, "B", exactly=1)
    if shape is not None:
        unify_dim(ctx, shape[0], m, "bias B must have one entry per output channel")


def conv_output_shape(ctx: InferenceContext, x: int = 0, w: int = 1) -> Shape:
    """Output shape of a convolution of input ``x`` by weight ``w`` (checks included)."""
    shape = static_conv_shape(ctx, x, w)
    return general_conv_shape(ctx, x, w) if shape is None else shape


def static_conv_shape(ctx: InferenceContext, x: int = 0, w: int = 1) -> tuple[Dim, ...] | None:
    """:func:`general_conv_shape`'s answer in the common case: the weight's dims and the
    input's (but its batch) known ints, the attributes plain and consistent. None in any
    other case (the general path answers, and words any error); never raises. A CNN's
    convolutions are most of the nodes inference has to run a rule for.
    """
    tx, tw = ctx.tensor(x), ctx.tensor(w)
    if tx is None or tw is None:
        return None
    xs, ws = tx.shape, tw.shape
    if xs is None or ws is None or len(xs) < 3 or len(ws) != len(xs):
        return None
    for d in xs[1:]:
        if type(d) is not int:
            return None
    for d in ws:
        if type(d) is not int:
            return None
    group, declared = static_conv_attributes(ctx)
    if group is None:
        return None
    kernel = ws[2:]
    if group < 1 or group_mismatch(xs[1], ws[0], ws[1], group) is not None:  # type: ignore[arg-type]
        return None
    if declared is not None and declared != kernel:
        return None
    spatial = static_window_output(ctx, xs[2:], kernel)
    return None if spatial is None else (xs[0], ws[0], *spatial)


_CONV_ATTRIBUTES = "static conv"  # the derived facts' key of _conv_attributes' answer


def static_conv_attributes(ctx: InferenceContext) -> tuple[int | None, tuple[int, ...] | None]:
    """group and the declared kernel_shape as :func:`static_conv_shape` reads them (group
    None: it declines), read once per alike group of nodes (the context's derived facts)."""
    derived = ctx.derived
    attributes = derived.get(_CONV_ATTRIBUTES)
    if attributes is None:
        attributes = derived[_CONV_ATTRIBUTES] = _conv_attributes(ctx)
    return attributes


def _conv_attributes(ctx: InferenceContext) -> tuple[int | None, tuple[int, ...] | None]:
    """group and the declared kernel_shape as the fast path reads them (group None: they
    cannot be read so, the general path words why)."""
    try:
        group = int(ctx.attr("group", 1))
        declared = ctx.attr("kernel_shape")
        return group, tuple(map(int, declared)) if declared else None
    except (TypeError, ValueError, OverflowError):
        return None, None


def general_conv_shape(ctx: InferenceContext, x: int = 0, w: int = 1) -> Shape:
    """:func:`conv_output_shape` for any input: every check, every dim known or not."""
    x_shape = require_rank(ctx, x, "X", at_least=3)
    w_shape = require_rank(ctx, w, "W", at_least=3)
    if x_shape is not None and w_shape is not None and len(w_shape) != len(x_shape):
        raise ctx.fail(
            f"weight W must have the rank of X ({len(x_shape)}), got W {show_shape(w_shape)} for "
            f"X {show_shape(x_shape)}"
        )
    rank = len(x_shape) if x_shape is not None else (None if w_shape is None else len(w_shape))
    if rank is None:
        return None
    nd = rank - 2
    group = int(ctx.attr("group", 1))
    if group < 1:
        raise ctx.fail(f"group must be >= 1, got {group}")
    _check_channels(ctx, x_shape, w_shape, group, "W")
    kernel = weight_kernel(ctx, w_shape, nd)
    spatial: Sequence[Dim] = (None,) * nd if x_shape is None else x_shape[2:]
    batch = None if x_shape is None else x_shape[0]
    m = None if w_shape is None else w_shape[0]
    static = static_window_output(ctx, spatial, kernel)
    if static is not None:
        return (batch, m, *static)
    window = window_attributes(ctx, nd)
    return (batch, m, *window_output_shape(ctx, spatial, kernel, window))


def _convolution(inputs: _ConvInputs, elem_of_output: int | None) -> Rule:
    def rule(ctx: InferenceContext) -> list[ValueType | None]:
        shape = static_conv_shape(ctx, inputs.x, inputs.w)
        valid = shape is not None  # dims of valid types and valid window sizes
        if shape is None:
            shape = general_conv_shape(ctx, inputs.x, inputs.w)
        _check_bias(ctx, inputs.bias, None if shape is None else shape[1])
        elem = ElementType.INT32 if elem_of_output is None else ctx.elem(elem_of_output)
        return [tensor(elem, shape) if valid else Tensor(elem, shape)]

    return rule


def register(rules: RuleRegistry) -> None:
    rules.add("Conv", _convolution(_CONV, 0), since=ALL_VERSIONS)
    rules.add("ConvInteger", _convolution(_CONV_INTEGER, None), since=ALL_VERSIONS)
    # QLinearConv's output takes y_zero_point's type.
    rules.add("QLinearConv", _convolution(_QLINEAR_CONV, 7), since=ALL_VERSIONS)
