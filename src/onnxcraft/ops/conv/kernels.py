"""Convolution kernels: Conv, ConvInteger and QLinearConv.

Every convolution runs as an im2col (a strided view of the padded input, see
:mod:`onnxcraft.ops.im2col`) followed by one batched matrix multiply covering all groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from onnxcraft.ops.conv.shapes import group_mismatch
from onnxcraft.ops.im2col import (
    WindowGeometry,
    pad_spatial,
    resolve_geometry,
    window_view,
)
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail

__all__ = ["check_conv_operands", "conv_geometry", "grouped_conv", "register"]


def check_conv_operands(op: str, x: np.ndarray, w: np.ndarray, group: int) -> None:
    """Validate ranks and channel counts of a convolution's data and weight."""
    if x.ndim < 3:
        fail(op, f"input X must have rank >= 3 (N, C, spatial...), got shape {x.shape}")
    if w.ndim != x.ndim:
        fail(op, f"weight W must have the rank of X ({x.ndim}), got shape {w.shape}")
    problem = None if group < 1 else group_mismatch(x.shape[1], w.shape[0], w.shape[1], group)
    if group < 1 or problem in ("input channels", "output channels"):
        fail(
            op,
            f"group={group} must divide the {x.shape[1]} input channels and the "
            f"{w.shape[0]} output channels",
        )
    if problem == "channels per group":
        fail(
            op,
            f"weight W has {w.shape[1]} channels per group but X has {x.shape[1]} "
            f"channels for group={group} (expected W.shape[1] = {x.shape[1] // group})",
        )


def conv_geometry(
    op: str,
    x: np.ndarray,
    w: np.ndarray,
    *,
    kernel_shape: Sequence[int] | None,
    strides: Sequence[int] | None,
    dilations: Sequence[int] | None,
    pads: Sequence[int] | None,
    auto_pad: str,
) -> WindowGeometry:
    """Window geometry of a convolution of ``x`` by ``w``."""
    kernel = tuple(w.shape[2:])
    if kernel_shape and tuple(int(k) for k in kernel_shape) != kernel:
        fail(op, f"kernel_shape={list(kernel_shape)} does not match weight shape {w.shape}")
    return resolve_geometry(
        op,
        x.shape[2:],
        kernel,
        strides=strides,
        dilations=dilations,
        pads=pads,
        auto_pad=auto_pad,
    )


def grouped_conv(
    x: np.ndarray, w: np.ndarray, geom: WindowGeometry, group: int, pad_value: Any = 0
) -> np.ndarray:
    """Convolve ``x`` (N, C, *in) by ``w`` (M, C/group, *k) with one batched matmul."""
    n, c = x.shape[:2]
    m = w.shape[0]
    nd = geom.ndim
    cols = window_view(pad_spatial(x, geom, pad_value), geom)  # (N, C, *out, *k)
    # Taps before positions: the copy made by reshape then streams along the output rows.
    order = (0, 1, *range(2 + nd, 2 + 2 * nd), *range(2, 2 + nd))
    positions = int(np.prod(geom.out_shape))
    taps = (c // group) * int(np.prod(geom.kernel))
    cols = cols.transpose(order).reshape(n, group, taps, positions)
    weights = w.reshape(group, m // group, taps)
    with np.errstate(all="ignore"):  # inf - inf in a sum gives NaN quietly, as ONNX's
        y = np.matmul(weights, cols)  # (N, group, M/group, positions)
    return np.asarray(y.reshape((n, m, *geom.out_shape)))


def _compute_dtype(x: np.ndarray) -> np.dtype[Any]:
    # float16 products accumulate in float32, as runtimes do, then round once at the end.
    return np.dtype(np.float64) if x.dtype == np.float64 else np.dtype(np.float32)


@compute_in_float32
def conv(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None = None,
    *,
    auto_pad: str = "NOTSET",
    dilations: Sequence[int] | None = None,
    group: int = 1,
    kernel_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """Conv (every version): N-D grouped, strided, dilated convolution plus bias."""
    check_conv_operands("Conv", x, w, group)
    geom = conv_geometry(
        "Conv",
        x,
        w,
        kernel_shape=kernel_shape,
        strides=strides,
        dilations=dilations,
        pads=pads,
        auto_pad=auto_pad,
    )
    ct = _compute_dtype(x)
    y = grouped_conv(x.astype(ct, copy=False), w.astype(ct, copy=False), geom, group)
    if b is not None:
        if b.shape != (w.shape[0],):
            fail("Conv", f"bias B must have shape ({w.shape[0]},), got {b.shape}")
        y += b.astype(ct).reshape((1, -1) + (1,) * geom.ndim)
    return y.astype(x.dtype, copy=False)


def _zero_point(op: str, arg: str, zp: np.ndarray | None, size: int, axis_ndim: int) -> Any:
    """A zero point as int64, scalar or one per channel broadcastable along axis 1."""
    if zp is None:
        return np.int64(0)
    values = np.asarray(zp).astype(np.int64)
    if values.size == 1:
        return values.reshape(())
    if values.shape != (size,):
        fail(op, f"{arg} must be a scalar or have {size} entries, got shape {values.shape}")
    return values.reshape((-1,) + (1,) * axis_ndim)


def _integer_conv(
    op: str,
    x: np.ndarray,
    w: np.ndarray,
    x_zero_point: np.ndarray | None,
    w_zero_point: np.ndarray | None,
    *,
    auto_pad: str,
    dilations: Sequence[int] | None,
    group: int,
    kernel_shape: Sequence[int] | None,
    pads: Sequence[int] | None,
    strides: Sequence[int] | None,
) -> np.ndarray:
    """Convolution of zero-point-shifted integers, exactly, as int64."""
    check_conv_operands(op, x, w, group)
    geom = conv_geometry(
        op,
        x,
        w,
        kernel_shape=kernel_shape,
        strides=strides,
        dilations=dilations,
        pads=pads,
        auto_pad=auto_pad,
    )
    x_zp = _zero_point(op, "x_zero_point", x_zero_point, 1, 0)
    w_zp = _zero_point(op, "w_zero_point", w_zero_point, w.shape[0], w.ndim - 1)
    xs = x.astype(np.int64) - x_zp
    ws = w.astype(np.int64) - w_zp
    # float64 holds these sums exactly (|products| < 2**16, far fewer than 2**37 terms) and
    # uses BLAS; padding is zero after the shift, i.e. the zero point before it.
    y = grouped_conv(xs.astype(np.float64), ws.astype(np.float64), geom, group)
    return np.asarray(np.rint(y).astype(np.int64))


def conv_integer(
    x: np.ndarray,
    w: np.ndarray,
    x_zero_point: np.ndarray | None = None,
    w_zero_point: np.ndarray | None = None,
    *,
    auto_pad: str = "NOTSET",
    dilations: Sequence[int] | None = None,
    group: int = 1,
    kernel_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """ConvInteger-10: integer convolution with zero points, int32 result."""
    y = _integer_conv(
        "ConvInteger",
        x,
        w,
        x_zero_point,
        w_zero_point,
        auto_pad=auto_pad,
        dilations=dilations,
        group=group,
        kernel_shape=kernel_shape,
        pads=pads,
        strides=strides,
    )
    return y.astype(np.int32)


def qlinear_conv(
    x: np.ndarray,
    x_scale: np.ndarray,
    x_zero_point: np.ndarray,
    w: np.ndarray,
    w_scale: np.ndarray,
    w_zero_point: np.ndarray,
    y_scale: np.ndarray,
    y_zero_point: np.ndarray,
    b: np.ndarray | None = None,
    *,
    auto_pad: str = "NOTSET",
    dilations: Sequence[int] | None = None,
    group: int = 1,
    kernel_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """QLinearConv-10: quantized convolution, requantized to the type of ``y_zero_point``."""
    op = "QLinearConv"
    acc = _integer_conv(
        op,
        x,
        w,
        x_zero_point,
        w_zero_point,
        auto_pad=auto_pad,
        dilations=dilations,
        group=group,
        kernel_shape=kernel_shape,
        pads=pads,
        strides=strides,
    )
    nd = x.ndim - 2
    if b is not None:
        if b.shape != (w.shape[0],):
            fail(op, f"bias B must have shape ({w.shape[0]},), got {b.shape}")
        acc = acc + b.astype(np.int64).reshape((1, -1) + (1,) * nd)
    w_scale_arr = np.asarray(w_scale, np.float64)
    if w_scale_arr.size not in (1, w.shape[0]):
        fail(op, f"w_scale must be a scalar or have {w.shape[0]} entries, got {w_scale_arr.shape}")
    per_channel = (
        w_scale_arr.reshape((1, -1) + (1,) * nd)
        if w_scale_arr.size > 1
        else (w_scale_arr.reshape(()))
    )
    multiplier = (
        np.float64(np.asarray(x_scale).reshape(()))
        * per_channel
        / np.float64(np.asarray(y_scale).reshape(()))
    )
    out_dtype = np.asarray(y_zero_point).dtype
    info = np.iinfo(out_dtype)
    y = np.rint(acc * multiplier) + np.int64(np.asarray(y_zero_point).reshape(()))
    return np.asarray(np.clip(y, info.min, info.max).astype(out_dtype))


def register(kernels: KernelRegistry) -> None:
    """Add the convolution kernels to ``kernels``."""
    kernels.add("Conv", conv, since=(1, 11, 22))
    kernels.add("ConvInteger", conv_integer, since=10)
    kernels.add("QLinearConv", qlinear_conv, since=10)
