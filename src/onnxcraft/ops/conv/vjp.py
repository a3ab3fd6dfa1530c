"""VJP rule of Conv: N-D, grouped, strided, dilated, padded.

The kernel computes Y = W @ cols, where ``cols`` holds every window of the padded input (an
im2col, see :mod:`onnxcraft.ops.im2col`). So dW = g @ cols^T summed over the batch,
d(cols) = W^T @ g, and dX adds every window's cotangent back onto the image
(:func:`~onnxcraft.ops.im2col.scatter_windows`, the adjoint of the window view),
dropping what fell on the padding. dB sums g over the batch and spatial axes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.ops.conv.kernels import check_conv_operands, conv_geometry
from onnxcraft.ops.im2col import pad_spatial, scatter_windows, window_view
from onnxcraft.ops.vjp_api import VjpCall, VjpRegistry

__all__ = ["register"]


def _compute_dtype(x: np.ndarray) -> np.dtype[Any]:
    # As the kernel: float16 accumulates in float32.
    return np.dtype(np.float64) if x.dtype == np.float64 else np.dtype(np.float32)


def _conv(call: VjpCall) -> list[np.ndarray | None]:
    x, w = np.asarray(call.inputs[0]), np.asarray(call.inputs[1])
    group = int(call.attr("group", 1))
    check_conv_operands("Conv", x, w, group)
    geom = conv_geometry(
        "Conv",
        x,
        w,
        kernel_shape=call.attr("kernel_shape"),
        strides=call.attr("strides"),
        dilations=call.attr("dilations"),
        pads=call.attr("pads"),
        auto_pad=call.attr("auto_pad", "NOTSET"),
    )
    ct = _compute_dtype(x)
    n, c = x.shape[:2]
    m, nd = w.shape[0], geom.ndim
    positions = int(np.prod(geom.out_shape))
    taps = (c // group) * int(np.prod(geom.kernel))
    g = call.g.astype(ct).reshape(n, group, m // group, positions)
    grads: list[np.ndarray | None] = [None] * len(call.inputs)
    if call.wants(1):
        cols = window_view(pad_spatial(x.astype(ct), geom, 0), geom)  # (N, C, *out, *k)
        order = (0, 1, *range(2 + nd, 2 + 2 * nd), *range(2, 2 + nd))
        cols = cols.transpose(order).reshape(n, group, taps, positions)
        gw = np.matmul(g, np.swapaxes(cols, -1, -2)).sum(axis=0)  # (group, M/group, taps)
        grads[1] = gw.reshape(w.shape).astype(w.dtype)
    if call.wants(0):
        weights = w.astype(ct).reshape(group, m // group, taps)
        gcols = np.matmul(np.swapaxes(weights, -1, -2), g)  # (N, group, taps, positions)
        gcols = gcols.reshape((n, c, *geom.kernel, *geom.out_shape))
        gx = scatter_windows(
            gcols,
            x.shape[2:],
            strides=geom.strides,
            dilations=geom.dilations,
            pads_begin=geom.pads_begin,
        )
        grads[0] = gx.astype(x.dtype)
    bias = call.input(2)
    if bias is not None and call.wants(2):
        grads[2] = call.g.sum(axis=(0, *range(2, 2 + nd))).astype(np.asarray(bias).dtype)
    return grads


def register(rules: VjpRegistry) -> None:
    rules.add("Conv", _conv)
