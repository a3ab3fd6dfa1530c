"""VJP rules of pooling: MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool.

A pooled output's cotangent goes back to the input elements of its window: all of it to the
first maximum (MaxPool, a subgradient where values tie, taps in row-major order as the
kernel's Indices), or an equal share to every element the average counted (AveragePool).
Windows are built per kernel tap, then added back onto the image by
:func:`~onnxcraft.ops.im2col.scatter_windows`, which drops what fell on the padding.
"""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.im2col import (
    WindowGeometry,
    pad_spatial,
    resolve_geometry,
    scatter_windows,
    tap_counts,
    tap_views,
)
from onnxcraft.ops.kernel_common import fail
from onnxcraft.ops.vjp_api import VjpCall, VjpRegistry

__all__ = ["register"]

Grads = list[np.ndarray | None]


def _geometry(call: VjpCall, x: np.ndarray) -> WindowGeometry:
    kernel_shape = call.attr("kernel_shape")
    if x.ndim < 3 or not kernel_shape or len(kernel_shape) != x.ndim - 2:
        fail(
            call.op_type,
            f"kernel_shape={kernel_shape} must have one entry per spatial axis of X "
            f"(shape {list(x.shape)})",
        )
    return resolve_geometry(
        call.op_type,
        x.shape[2:],
        kernel_shape,
        strides=call.attr("strides"),
        dilations=call.attr("dilations"),
        pads=call.attr("pads"),
        auto_pad=call.attr("auto_pad", "NOTSET"),
        ceil_mode=bool(call.attr("ceil_mode", 0)),
    )


def _scatter(cols: np.ndarray, x: np.ndarray, geom: WindowGeometry) -> np.ndarray:
    gx = scatter_windows(
        cols,
        x.shape[2:],
        strides=geom.strides,
        dilations=geom.dilations,
        pads_begin=geom.pads_begin,
    )
    return gx.astype(x.dtype)


def _max_pool(call: VjpCall) -> Grads:
    x, result = np.asarray(call.inputs[0]), np.asarray(call.outputs[0])
    geom = _geometry(call, x)
    g = call.g
    padded = pad_spatial(x, geom, -np.inf)
    cols = np.zeros(x.shape[:2] + geom.kernel + geom.out_shape, g.dtype)
    taken = np.zeros(result.shape, bool)
    for tap, view in zip(np.ndindex(*geom.kernel), tap_views(padded, geom)):
        hit = (view == result) & ~taken
        taken |= hit
        index = (slice(None), slice(None), *tap)
        cols[index] = np.where(hit, g, 0)
    return [_scatter(cols, x, geom)]


def _average_pool(call: VjpCall) -> Grads:
    x = np.asarray(call.inputs[0])
    geom = _geometry(call, x)
    include_pad = bool(call.attr("count_include_pad", 0))
    counts = np.ones((1, 1) + (1,) * geom.ndim, np.int64)
    for axis in range(geom.ndim):  # as the kernel: the taps counted, axis by axis
        along = tap_counts(x.shape[2 + axis], geom, axis, padded_extent=include_pad)
        shape = [1] * (2 + geom.ndim)
        shape[2 + axis] = -1
        counts = counts * along.reshape(shape)
    g = call.g
    with np.errstate(divide="ignore", invalid="ignore"):
        share = g / counts.astype(g.dtype)
    # Every tap of a window receives the same share; taps on the padding are dropped.
    spread = share.reshape(x.shape[:2] + (1,) * geom.ndim + geom.out_shape)
    cols = np.broadcast_to(spread, x.shape[:2] + geom.kernel + geom.out_shape)
    return [_scatter(cols, x, geom)]


def _global_average_pool(call: VjpCall) -> Grads:
    x = np.asarray(call.inputs[0])
    count = int(np.prod(x.shape[2:]))
    return [np.broadcast_to(call.g / np.asarray(max(count, 1), call.g.dtype), x.shape).copy()]


def _global_max_pool(call: VjpCall) -> Grads:
    x = np.asarray(call.inputs[0])
    flat = x.reshape(x.shape[:2] + (-1,))
    first = np.expand_dims(np.argmax(flat, axis=-1), -1)
    gx = np.zeros(flat.shape, x.dtype)
    np.put_along_axis(gx, first, call.g.reshape(x.shape[:2] + (1,)), axis=-1)
    return [gx.reshape(x.shape)]


def register(rules: VjpRegistry) -> None:
    rules.add("MaxPool", _max_pool)
    rules.add("AveragePool", _average_pool)
    rules.add("GlobalAveragePool", _global_average_pool)
    rules.add("GlobalMaxPool", _global_max_pool)
