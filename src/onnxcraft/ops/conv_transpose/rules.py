"""Rules for ConvTranspose (output_shape, output_padding, auto_pad) and Col2Im."""

from __future__ import annotations

from collections.abc import Sequence

from onnxcraft.ops.conv_transpose.shapes import transposed_output_channels
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import dim_product
from onnxcraft.ops.windows import (
    WindowAttributes,
    dilated_extent,
    ints_attr,
    require_rank,
    same_transposed_size,
    show_shape,
    transposed_window_size,
    unify_dim,
    weight_kernel,
    window_attributes,
    window_count,
)
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]


def _explicit_output_shape(ctx: InferenceContext, nd: int) -> tuple[int, ...] | None:
    """The output_shape attribute's spatial part (it may also list N and C first)."""
    attr = ctx.attr("output_shape")
    if not attr:
        return None
    values = tuple(int(v) for v in attr)
    if len(values) not in (nd, nd + 2):
        raise ctx.fail(
            f"output_shape={list(values)} must list the {nd} spatial dims (or all {nd + 2} dims)"
        )
    if any(v < 0 for v in values):
        raise ctx.fail(f"output_shape must be non-negative, got {list(values)}")
    return values[-nd:]


def _transposed_dim(
    ctx: InferenceContext,
    axis: int,
    size: Dim,
    kernel: Dim,
    output_padding: int,
    window: WindowAttributes,
) -> Dim:
    """stride * (size - 1) + output_padding + dilated kernel - pads, or SAME's size * stride."""
    stride = window.strides[axis]
    if window.auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        if isinstance(size, int):
            return same_transposed_size(size, stride)
        return size if stride == 1 else None
    nd = window.ndim
    pads = 0 if window.auto_pad == "VALID" else window.pads[axis] + window.pads[nd + axis]
    if not isinstance(kernel, int):
        return None
    span = dilated_extent(kernel, window.dilations[axis])
    if not isinstance(size, int):
        # With stride 1 the output is the input when the window adds exactly what pads remove.
        return size if stride == 1 and output_padding + span - 1 == pads else None
    out = transposed_window_size(size, stride, span, pads, output_padding)
    if out < 0:
        raise ctx.fail(
            f"pads {window.pads} leave a negative output size ({out}) along spatial axis {axis} "
            f"(input size {size}, stride {stride}, kernel extent {span})"
        )
    return out


def _conv_transpose(ctx: InferenceContext) -> list[ValueType | None]:
    elem = ctx.elem(0)
    x_shape = require_rank(ctx, 0, "X", at_least=3)
    w_shape = require_rank(ctx, 1, "W", at_least=3)
    if x_shape is not None and w_shape is not None and len(x_shape) != len(w_shape):
        raise ctx.fail(
            f"weight W must have the rank of X ({len(x_shape)}), got W {show_shape(w_shape)}"
        )
    rank = len(x_shape) if x_shape is not None else (None if w_shape is None else len(w_shape))
    if rank is None:
        return [Tensor(elem, None)]
    nd = rank - 2
    group = int(ctx.attr("group", 1))
    if group < 1:
        raise ctx.fail(f"group must be >= 1, got {group}")
    c = None if x_shape is None else x_shape[1]
    if w_shape is not None:
        unify_dim(ctx, w_shape[0], c, "weight W's dim 0 must equal X's channels")
    if isinstance(c, int) and c % group:
        raise ctx.fail(f"group={group} must divide the {c} input channels of X")
    per_group = None if w_shape is None else w_shape[1]
    m: Dim = (
        transposed_output_channels(per_group, group)
        if isinstance(per_group, int)
        else (per_group if group == 1 else None)
    )
    _check_bias(ctx, m)
    kernel = weight_kernel(ctx, w_shape, nd)
    window = window_attributes(ctx, nd)
    output_padding = ints_attr(ctx, "output_padding", nd, 0, minimum=0)
    batch = None if x_shape is None else x_shape[0]
    explicit = _explicit_output_shape(ctx, nd)
    if explicit is not None:
        return [Tensor(elem, (batch, m, *explicit))]
    spatial: Sequence[Dim] = (None,) * nd if x_shape is None else x_shape[2:]
    dims = tuple(
        _transposed_dim(ctx, axis, size, k, output_padding[axis], window)
        for axis, (size, k) in enumerate(zip(spatial, kernel))
    )
    return [Tensor(elem, (batch, m, *dims))]


def _check_bias(ctx: InferenceContext, m: Dim) -> None:
    if not ctx.has_input(2):
        return
    shape = require_rank(ctx, 2, "B", exactly=1)
    if shape is not None:
        unify_dim(ctx, shape[0], m, "bias B must have one entry per output channel")


def _block_count(
    ctx: InferenceContext, axis: int, image: int, block: int, window: WindowAttributes
) -> int:
    """How many blocks fit along one image axis (the windows Im2Col would have taken)."""
    nd = window.ndim
    begin, end = window.pads[axis], window.pads[nd + axis]
    span = dilated_extent(block, window.dilations[axis])
    padded = image + begin + end
    if block < 1 or padded < span:
        raise ctx.fail(
            f"block_shape entry {block} (extent {span}) does not fit the padded image size "
            f"{padded} along axis {axis}"
        )
    return window_count(image, begin, end, span, window.strides[axis])


def _col2im(ctx: InferenceContext) -> list[ValueType | None]:
    elem = ctx.elem(0)
    x_shape = require_rank(ctx, 0, "input", exactly=3)
    for index, arg in ((1, "image_shape"), (2, "block_shape")):
        require_rank(ctx, index, arg, exactly=1)
    image, block = ctx.dims_value(1), ctx.int_values(2)  # image sizes may be symbols
    nd = _spatial_count(ctx, image, block)
    if nd is None:
        return [Tensor(elem, None)]
    window = window_attributes(ctx, nd, auto_pad=False)
    batch = None if x_shape is None else x_shape[0]
    rows = None if x_shape is None else x_shape[1]
    channels: Dim = None
    if block is not None:
        taps = dim_product(block)
        if isinstance(rows, int) and taps and rows % taps:
            raise ctx.fail(
                f"input dim 1 ({rows}) must be C * prod(block_shape) = C * {taps}, "
                f"but {taps} does not divide it"
            )
        channels = rows // taps if isinstance(rows, int) and taps else None
        static_image = [] if image is None else [i for i in image if isinstance(i, int)]
        if len(static_image) == nd and x_shape is not None:
            counts = [
                _block_count(ctx, a, i, b, window)
                for a, (i, b) in enumerate(zip(static_image, block))
            ]
            unify_dim(
                ctx,
                x_shape[2],
                dim_product(counts),
                f"input dim 2 must be the number of blocks {counts} the image shape implies",
            )
    spatial: tuple[Dim, ...] = tuple(image) if image is not None else (None,) * nd
    return [Tensor(elem, (batch, channels, *spatial))]


def _spatial_count(
    ctx: InferenceContext, image: Sequence[Dim] | None, block: Sequence[int] | None
) -> int | None:
    """The number of image axes, from whichever of image_shape / block_shape is known."""
    lengths = [len(v) for v in (image, block) if v is not None]
    for index in (1, 2):
        shape = ctx.shape(index)
        if shape is not None and isinstance(shape[0], int):
            lengths.append(shape[0])
    if len(set(lengths)) > 1:
        raise ctx.fail(f"image_shape and block_shape must have the same length, got {lengths}")
    return lengths[0] if lengths else None


def register(rules: RuleRegistry) -> None:
    rules.add("ConvTranspose", _conv_transpose, since=ALL_VERSIONS)
    rules.add("Col2Im", _col2im, since=ALL_VERSIONS)
