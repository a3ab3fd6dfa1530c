"""VJP rules of shape manipulation: Identity, Reshape, Flatten, (Un)Squeeze, Transpose, Concat,
Slice, Expand, Tile.

These operators move elements without changing them, so the cotangent moves back: reshaped,
transposed by the inverse permutation, split, summed over the copies Expand and Tile made,
or scattered back to where Slice read it. Shape, axes and bound inputs get no gradient.
"""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.kernel_common import normalize_axis
from onnxcraft.ops.vjp_api import VjpCall, VjpRegistry
from onnxcraft.ops.vjp_common import by_provenance, sum_to_shape

__all__ = ["register"]

Grads = list[np.ndarray | None]


def _reshaped(call: VjpCall) -> Grads:
    """Identity, Reshape, Flatten, Squeeze, Unsqueeze: same elements, another shape."""
    grads: Grads = [None] * len(call.inputs)
    grads[0] = call.g.reshape(np.shape(call.inputs[0]))
    return grads


def _transpose(call: VjpCall) -> Grads:
    perm = call.attr("perm")
    if perm is None:  # the default reverses the axes, its own inverse
        return [np.transpose(call.g)]
    return [np.transpose(call.g, np.argsort(perm))]


def _concat(call: VjpCall) -> Grads:
    rank = np.ndim(call.inputs[0])
    axis = normalize_axis(int(call.attr("axis", 1)), rank, op="Concat")
    sizes = [np.shape(x)[axis] for x in call.inputs]
    pieces = np.split(call.g, np.cumsum(sizes)[:-1], axis=axis)
    return [piece if call.wants(i) else None for i, piece in enumerate(pieces)]


def _expand(call: VjpCall) -> Grads:
    return [sum_to_shape(call.g, np.shape(call.inputs[0])), None]


def _tile(call: VjpCall) -> Grads:
    """Tile copies the input reps[i] times along axis i: sum the copies."""
    x = np.asarray(call.inputs[0])
    grads: Grads = [None] * len(call.inputs)
    if x.size == 0:
        grads[0] = np.zeros_like(x)
        return grads
    g = call.g
    reps = [out // n for out, n in zip(g.shape, x.shape)]
    # Axis i of the output is (copy, element) in row-major order: split it, sum the copies.
    split = [d for pair in zip(reps, x.shape) for d in pair]
    grads[0] = g.reshape(split).sum(axis=tuple(range(0, 2 * x.ndim, 2)))
    return grads


def register(rules: VjpRegistry) -> None:
    for name in ("Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze"):
        rules.add(name, _reshaped)
    rules.add("Transpose", _transpose)
    rules.add("Concat", _concat)
    rules.add("Slice", by_provenance(0))
    rules.add("Expand", _expand)
    rules.add("Tile", _tile)
