"""VJP rules of reductions: ReduceSum, ReduceMean, ReduceSumSquare, ReduceMax, ReduceMin.

The reduced axes come from the ``axes`` attribute (older versions) or the second input
(ReduceSum from 13, the others from 18); none means every axis, unless
``noop_with_empty_axes`` makes the node an identity. The cotangent is broadcast back over the
reduced axes (after re-inserting them when ``keepdims`` is 0). ReduceMax and ReduceMin pass it
to the first extreme element of each reduced slice: a subgradient where values tie.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from onnxcraft.ops.kernel_common import normalize_axes
from onnxcraft.ops.vjp_api import VjpCall, VjpRegistry

__all__ = ["register"]

Grads = list[np.ndarray | None]


def _axes(call: VjpCall, rank: int) -> tuple[int, ...] | None:
    """The reduced axes, normalized; None when the node leaves its input unchanged."""
    values = call.attr("axes")
    if values is None and call.input(1) is not None:
        values = [int(a) for a in np.asarray(call.input(1)).reshape(-1)]
    if not values:
        if call.attr("noop_with_empty_axes", 0):
            return None
        return tuple(range(rank))
    return normalize_axes(values, rank, op=call.op_type)


def _spread(call: VjpCall, axes: tuple[int, ...]) -> np.ndarray:
    """The output cotangent with the reduced axes back in place (size 1) for broadcasting."""
    g = call.g
    if not call.attr("keepdims", 1):
        g = np.expand_dims(g, axes)
    return g


def _reduce(scale: Callable[[np.ndarray, tuple[int, ...]], np.ndarray]) -> Callable[..., Grads]:
    """A rule for reductions whose derivative is ``scale(x, axes)`` times the cotangent."""

    def rule(call: VjpCall) -> Grads:
        x = np.asarray(call.inputs[0])
        grads: Grads = [None] * len(call.inputs)
        axes = _axes(call, x.ndim)
        if axes is None:
            grads[0] = call.g
            return grads
        g = _spread(call, axes)
        grads[0] = np.broadcast_to(g * scale(x, axes), x.shape).astype(x.dtype)
        return grads

    return rule


def _count(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    return np.asarray(1.0 / max(int(np.prod([x.shape[a] for a in axes])), 1), x.dtype)


def _extreme(pick: Callable[..., np.ndarray]) -> Callable[..., Grads]:
    """ReduceMax/ReduceMin: the cotangent goes to the first extreme element of each slice."""

    def rule(call: VjpCall) -> Grads:
        x = np.asarray(call.inputs[0])
        grads: Grads = [None] * len(call.inputs)
        axes = _axes(call, x.ndim)
        if axes is None:
            grads[0] = call.g
            return grads
        g = _spread(call, axes)  # the kept axes in order, size 1 where reduced
        if x.size == 0:
            grads[0] = np.zeros_like(x)
            return grads
        # Reduced axes last, flattened: one argmax per slice, in row-major order.
        kept = [a for a in range(x.ndim) if a not in axes]
        moved = np.transpose(x, kept + list(axes))
        flat = moved.reshape(moved.shape[: len(kept)] + (-1,))
        first = np.expand_dims(pick(flat, axis=-1), -1)
        onehot = np.zeros(flat.shape, x.dtype)
        np.put_along_axis(onehot, first, 1, axis=-1)
        spread = onehot * g.reshape(flat.shape[:-1] + (1,))
        back = spread.reshape(moved.shape)
        grads[0] = np.transpose(back, np.argsort(kept + list(axes))).astype(x.dtype)
        return grads

    return rule


def register(rules: VjpRegistry) -> None:
    rules.add("ReduceSum", _reduce(lambda x, axes: np.ones((), x.dtype)))
    rules.add("ReduceMean", _reduce(_count))
    rules.add("ReduceSumSquare", _reduce(lambda x, axes: 2 * x))
    rules.add("ReduceMax", _extreme(np.argmax))
    rules.add("ReduceMin", _extreme(np.argmin))
