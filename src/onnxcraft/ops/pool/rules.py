"""Rules for pooling: MaxPool (and its Indices), AveragePool, LpPool, the Global forms,
and MaxUnpool."""

from __future__ import annotations

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import tensor
from onnxcraft.ops.windows import (
    ints_attr,
    require_rank,
    show_shape,
    spatial_input,
    static_window_output,
    transposed_window_size,
    unify_dim,
    window_attributes,
    window_output_shape,
)
from onnxcraft.types import Dim, Shape, Tensor, ValueType

__all__ = ["register"]


def _kernel_shape(ctx: InferenceContext, nd: int) -> tuple[int, ...]:
    attr = ctx.attr("kernel_shape")
    if not attr:
        raise ctx.fail("attribute kernel_shape is required")
    kernel = tuple(int(k) for k in attr)
    if len(kernel) != nd:
        raise ctx.fail(
            f"kernel_shape={list(kernel)} must have one entry per spatial axis of X ({nd})"
        )
    if any(k < 1 for k in kernel):
        raise ctx.fail(f"kernel_shape must be positive, got {list(kernel)}")
    return kernel


def _pooled_shape(ctx: InferenceContext) -> tuple[Shape, bool]:
    """(N, C, *windows) of a windowed pooling of input 0, and whether its dims are known to
    be valid (the fast path's: a type of them needs no checking)."""
    shape = spatial_input(ctx)
    if shape is None:
        attr = ctx.attr("kernel_shape")
        return (None if not attr else (None,) * (len(attr) + 2)), False
    nd = len(shape) - 2
    kernel = _kernel_shape(ctx, nd)
    static = static_window_output(ctx, shape[2:], kernel)
    if static is not None:
        return (shape[0], shape[1], *static), True
    window = window_attributes(ctx, nd)
    return (shape[0], shape[1], *window_output_shape(ctx, shape[2:], kernel, window)), False


def _pool(ctx: InferenceContext) -> list[ValueType | None]:
    """AveragePool, LpPool and MaxPool: Y, plus MaxPool's int64 Indices of the same shape."""
    shape, valid = _pooled_shape(ctx)
    values = tensor(ctx.elem(0), shape) if valid else Tensor(ctx.elem(0), shape)
    if ctx.num_outputs > 1:
        return [values, Tensor(ElementType.INT64, shape)]
    return [values]


def _global_pool(ctx: InferenceContext) -> list[ValueType | None]:
    shape = spatial_input(ctx)
    if shape is None:
        return [Tensor(ctx.elem(0), None)]
    return [Tensor(ctx.elem(0), (shape[0], shape[1], *(1,) * (len(shape) - 2)))]


def _unpooled_dim(
    ctx: InferenceContext, axis: int, size: Dim, kernel: int, stride: int, pads: int
) -> Dim:
    """The size MaxPool's input had: (size - 1) * stride + kernel - pads."""
    if not isinstance(size, int):
        return size if stride == 1 and kernel - 1 == pads else None
    unpooled = transposed_window_size(size, stride, kernel, pads)
    if unpooled < 0:
        raise ctx.fail(
            f"pads ({pads} in all) leave a negative output size ({unpooled}) along spatial "
            f"axis {axis} (input size {size}, stride {stride}, kernel {kernel})"
        )
    return unpooled


def _max_unpool(ctx: InferenceContext) -> list[ValueType | None]:
    elem = ctx.elem(0)
    x_shape = spatial_input(ctx)
    i_shape = require_rank(ctx, 1, "I", at_least=3)
    if x_shape is not None and i_shape is not None:
        if len(x_shape) != len(i_shape):
            raise ctx.fail(
                f"indices I must have the shape of X {show_shape(x_shape)}, got "
                f"{show_shape(i_shape)}"
            )
        x_shape = tuple(
            unify_dim(ctx, a, b, f"indices I must have the shape of X, dim {axis}")
            for axis, (a, b) in enumerate(zip(x_shape, i_shape))
        )
    x_shape = x_shape if x_shape is not None else i_shape
    if x_shape is None:
        return [Tensor(elem, None)]
    nd = len(x_shape) - 2
    kernel = _kernel_shape(ctx, nd)
    strides = ints_attr(ctx, "strides", nd, 1, minimum=1)
    pads = ints_attr(ctx, "pads", 2 * nd, 0, minimum=0)
    default = (
        x_shape[0],
        x_shape[1],
        *(
            _unpooled_dim(ctx, a, x_shape[2 + a], kernel[a], strides[a], pads[a] + pads[nd + a])
            for a in range(nd)
        ),
    )
    if not ctx.has_input(2):
        return [Tensor(elem, default)]
    return [Tensor(elem, _requested_unpool_shape(ctx, default))]


def _requested_unpool_shape(ctx: InferenceContext, default: tuple[Dim, ...]) -> Shape:
    """The output_shape input: N and C kept, each spatial dim at least the default one."""
    shape = require_rank(ctx, 2, "output_shape", exactly=1)
    if shape is not None and isinstance(shape[0], int) and shape[0] != len(default):
        raise ctx.fail(
            f"output_shape must have {len(default)} entries (the rank of X), got {shape[0]}"
        )
    target = ctx.dims_value(2)
    if target is None:
        return (default[0], default[1], *(None,) * (len(default) - 2))
    if len(target) != len(default):
        raise ctx.fail(f"output_shape must have {len(default)} entries, got {list(target)}")
    for axis, (want, least) in enumerate(zip(target, default)):
        if not (isinstance(want, int) and isinstance(least, int)):
            continue
        if want < least or (axis < 2 and want != least):
            raise ctx.fail(
                f"output_shape must keep N and C and be at least {show_shape(default)}, "
                f"got {show_shape(target)}"
            )
    # N and C are X's: where the request is symbolic or unknown, X says at least as much.
    return tuple(
        least if axis < 2 and least is not None else want
        for axis, (want, least) in enumerate(zip(target, default))
    )


def register(rules: RuleRegistry) -> None:
    for name in ("MaxPool", "AveragePool", "LpPool"):
        rules.add(name, _pool, since=ALL_VERSIONS)
    for name in ("GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"):
        rules.add(name, _global_pool, since=ALL_VERSIONS)
    rules.add("MaxUnpool", _max_unpool, since=ALL_VERSIONS)
