"""Transposed convolution and its building block: ConvTranspose and Col2Im.

Both compute per-tap contributions with one matrix multiply (or take them as input, for Col2Im)
and add them back onto the output image tap by tap (:func:`onnxcraft.ops.im2col.scatter_windows`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from onnxcraft.ops.conv_transpose.shapes import transposed_output_channels
from onnxcraft.ops.im2col import int_list, scatter_windows
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail
from onnxcraft.ops.windows import (
    dilated_extent,
    same_transposed_size,
    split_padding,
    transposed_window_size,
    window_count,
)

__all__ = ["register"]


def _transpose_pads(
    in_spatial: Sequence[int],
    *,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    output_padding: Sequence[int],
    output_shape: Sequence[int] | None,
    auto_pad: str,
) -> tuple[list[int], list[int]]:
    """Leading pads and output sizes of a transposed convolution, per the spec's equations."""
    nd = len(in_spatial)
    extents = [dilated_extent(k, d) for k, d in zip(kernel, dilations, strict=True)]
    if output_shape is None and auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        output_shape = [
            same_transposed_size(i, s) for i, s in zip(in_spatial, strides, strict=True)
        ]
    if output_shape is None:
        begin = list(pads[:nd])
        out = [
            transposed_window_size(
                in_spatial[i], strides[i], extents[i], pads[i] + pads[nd + i], op
            )
            for i, op in zip(range(nd), output_padding, strict=True)
        ]
        return begin, out
    begin = []
    for i, o in zip(range(nd), output_shape, strict=True):
        # The pads that take the unpadded output down to the requested size. Python's floor
        # division matches the spec's "/2" for the non-negative totals it describes; negative
        # totals (a larger output) put zeros around the result.
        total = transposed_window_size(in_spatial[i], strides[i], extents[i], 0, output_padding[i])
        begin.append(split_padding(total - o, auto_pad == "SAME_UPPER")[0])
    return begin, list(output_shape)


@compute_in_float32
def conv_transpose(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None = None,
    *,
    auto_pad: str = "NOTSET",
    dilations: Sequence[int] | None = None,
    group: int = 1,
    kernel_shape: Sequence[int] | None = None,
    output_padding: Sequence[int] | None = None,
    output_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """ConvTranspose (every version): the gradient of Conv with respect to its input."""
    op = "ConvTranspose"
    if x.ndim < 3 or w.ndim != x.ndim:
        fail(op, f"X must have rank >= 3 and W the same rank, got X {x.shape} and W {w.shape}")
    n, c = x.shape[:2]
    nd = x.ndim - 2
    if group < 1 or c % group or w.shape[0] != c:
        fail(
            op,
            f"W must have X's {c} input channels first and group={group} must divide "
            f"them, got W shape {w.shape}",
        )
    kernel = tuple(w.shape[2:])
    if kernel_shape and tuple(int(k) for k in kernel_shape) != kernel:
        fail(op, f"kernel_shape={list(kernel_shape)} does not match weight shape {w.shape}")
    strides_t = int_list(strides, nd, 1)
    dilations_t = int_list(dilations, nd, 1)
    pads_t = int_list(pads, 2 * nd, 0)
    out_pad = int_list(output_padding, nd, 0)
    if auto_pad == "VALID":
        pads_t = (0,) * (2 * nd)
    shape_attr = None
    if output_shape:
        shape_attr = [int(v) for v in output_shape][-nd:]
    if (
        len(strides_t) != nd
        or len(dilations_t) != nd
        or len(pads_t) != 2 * nd
        or (len(out_pad) != nd)
    ):
        fail(
            op,
            f"strides, dilations, output_padding need {nd} entries and pads {2 * nd}, got "
            f"{list(strides_t)}, {list(dilations_t)}, {list(out_pad)}, {list(pads_t)}",
        )
    begin, out_spatial = _transpose_pads(
        x.shape[2:],
        kernel=kernel,
        strides=strides_t,
        dilations=dilations_t,
        pads=pads_t,
        output_padding=out_pad,
        output_shape=shape_attr,
        auto_pad=auto_pad,
    )
    if any(o < 0 for o in out_spatial):
        fail(op, f"the computed output spatial shape {out_spatial} is negative")

    ct = np.float64 if x.dtype == np.float64 else np.float32
    cg = c // group
    mg = w.shape[1]
    m = transposed_output_channels(mg, group)
    taps = int(np.prod(kernel))
    positions = int(np.prod(x.shape[2:]))
    # (group, M/group * taps, C/group) @ (N, group, C/group, positions)
    weights = w.astype(ct).reshape(group, cg, mg * taps).transpose(0, 2, 1)
    data = x.astype(ct).reshape(n, group, cg, positions)
    cols = np.matmul(weights, data).reshape((n, m, *kernel, *x.shape[2:]))
    y = scatter_windows(
        cols, out_spatial, strides=strides_t, dilations=dilations_t, pads_begin=begin
    )
    if b is not None:
        if b.shape != (m,):
            fail(op, f"bias B must have shape ({m},), got {b.shape}")
        y = y + b.astype(ct).reshape((1, -1) + (1,) * nd)
    return np.ascontiguousarray(y).astype(x.dtype, copy=False)


@compute_in_float32
def col2im(
    data: np.ndarray,
    image_shape: np.ndarray,
    block_shape: np.ndarray,
    *,
    dilations: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """Col2Im-18: add column blocks (N, C*prod(block), L) back into images (N, C, *image)."""
    op = "Col2Im"
    if data.dtype.kind not in "biufc":
        fail(op, f"overlapping blocks are summed, so the input must be numeric, got {data.dtype}")
    image = [int(v) for v in np.asarray(image_shape).reshape(-1)]
    block = [int(v) for v in np.asarray(block_shape).reshape(-1)]
    nd = len(image)
    if len(block) != nd:
        fail(op, f"image_shape {image} and block_shape {block} must have the same length")
    if data.ndim != 3:
        fail(op, f"input must have rank 3 (N, C * prod(block_shape), L), got shape {data.shape}")
    strides_t = int_list(strides, nd, 1)
    dilations_t = int_list(dilations, nd, 1)
    pads_t = int_list(pads, 2 * nd, 0)
    blocks_per_axis = [
        window_count(i, pads_t[k], pads_t[nd + k], dilated_extent(b, d), s)
        for k, (i, b, s, d) in enumerate(zip(image, block, strides_t, dilations_t, strict=True))
    ]
    taps = int(np.prod(block))
    n, rows, count = data.shape
    if taps == 0 or rows % taps or int(np.prod(blocks_per_axis)) != count:
        fail(
            op,
            f"input shape {data.shape} does not match block_shape {block} and the "
            f"{blocks_per_axis} blocks the image shape implies",
        )
    cols = data.reshape((n, rows // taps, *block, *blocks_per_axis))
    return scatter_windows(
        cols, image, strides=strides_t, dilations=dilations_t, pads_begin=pads_t[:nd]
    )


def register(kernels: KernelRegistry) -> None:
    """Add ConvTranspose and Col2Im to ``kernels``."""
    kernels.add("ConvTranspose", conv_transpose, since=(1, 11, 22))
    kernels.add("Col2Im", col2im, since=18)
