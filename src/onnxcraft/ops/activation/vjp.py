"""VJP rules of activations: Relu, LeakyRelu, Sigmoid, Clip, Softmax, LogSoftmax.

Kinks take the one-sided derivative the kernel's branch implies (Relu passes nothing at 0,
LeakyRelu's ``x >= 0`` branch passes everything). Softmax and LogSoftmax before version 13
work on the input seen as a matrix split at ``axis``; from 13 on, along ``axis`` alone.
"""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.kernel_common import fail, normalize_axis
from onnxcraft.ops.vjp_api import VjpCall, VjpRegistry

__all__ = ["register"]

Grads = list[np.ndarray | None]


def _relu(call: VjpCall) -> Grads:
    x = np.asarray(call.inputs[0])
    return [np.where(x > 0, call.g, 0).astype(x.dtype)]


def _leaky_relu(call: VjpCall) -> Grads:
    x = np.asarray(call.inputs[0])
    alpha = float(call.attr("alpha", 0.01))
    return [(call.g * np.where(x >= 0, 1, alpha)).astype(x.dtype)]


def _sigmoid(call: VjpCall) -> Grads:
    y = np.asarray(call.outputs[0])
    return [(call.g * y * (1 - y)).astype(y.dtype)]


def _clip(call: VjpCall) -> Grads:
    """Clip is min(max(x, low), high): each bound takes the elements it decided."""
    x = np.asarray(call.inputs[0])
    low, high = call.input(1), call.input(2)
    if call.since_version < 11:  # the bounds are attributes
        low, high = call.attr("min"), call.attr("max")
    raised = x if low is None else np.maximum(x, np.asarray(low, x.dtype))
    g = call.g
    # max(x, low) passes x where x >= low (ties keep x, as np.maximum keeps its first
    # argument's value); min(raised, high) passes `raised` where raised <= high.
    below_high = np.ones(x.shape, bool) if high is None else raised <= np.asarray(high, x.dtype)
    above_low = np.ones(x.shape, bool) if low is None else x >= np.asarray(low, x.dtype)
    grads: Grads = [np.where(below_high & above_low, g, 0).astype(x.dtype), None, None]
    if call.since_version >= 11:
        if call.wants(1) and low is not None:
            grads[1] = np.asarray(np.sum(np.where(below_high & ~above_low, g, 0))).reshape(
                np.shape(low)
            )
        if call.wants(2) and high is not None:
            grads[2] = np.asarray(np.sum(np.where(below_high, 0, g))).reshape(np.shape(high))
    return grads[: len(call.inputs)]


def _softmax_axis(call: VjpCall, x: np.ndarray) -> tuple[np.ndarray, int]:
    """The array and axis the kernel normalized along (a 2-D view before version 13)."""
    if call.since_version >= 13:
        if x.ndim == 0:
            fail(call.op_type, "the input must have rank >= 1")
        return x, normalize_axis(int(call.attr("axis", -1)), x.ndim, op=call.op_type)
    axis = int(call.attr("axis", 1))
    axis = axis + x.ndim if axis < 0 else axis
    if not 0 <= axis <= x.ndim:
        fail(call.op_type, f"axis={axis} is out of range for rank {x.ndim}")
    rows = int(np.prod(x.shape[:axis]))
    return x.reshape(rows, int(np.prod(x.shape[axis:]))), 1


def _softmax(call: VjpCall) -> Grads:
    x = np.asarray(call.inputs[0])
    y, axis = _softmax_axis(call, np.asarray(call.outputs[0]))
    g = call.g.reshape(y.shape)
    # J^T g for J = diag(y) - y y^T along the axis.
    gx = y * (g - np.sum(g * y, axis=axis, keepdims=True))
    return [gx.reshape(x.shape).astype(x.dtype)]


def _log_softmax(call: VjpCall) -> Grads:
    x = np.asarray(call.inputs[0])
    y, axis = _softmax_axis(call, np.asarray(call.outputs[0]))
    g = call.g.reshape(y.shape)
    # y = x - logsumexp(x): dy_i/dx_j = [i = j] - softmax_j.
    gx = g - np.exp(y) * np.sum(g, axis=axis, keepdims=True)
    return [gx.reshape(x.shape).astype(x.dtype)]


def register(rules: VjpRegistry) -> None:
    rules.add("Relu", _relu)
    rules.add("LeakyRelu", _leaky_relu)
    rules.add("Sigmoid", _sigmoid)
    rules.add("Clip", _clip)
    rules.add("Softmax", _softmax)
    rules.add("LogSoftmax", _log_softmax)
