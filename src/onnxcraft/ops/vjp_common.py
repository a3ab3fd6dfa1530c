"""Helpers shared by the VJP families: undoing broadcasting, tracing data movement."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from onnxcraft.ops.vjp_api import VjpCall, VjpRule

__all__ = ["by_provenance", "sum_to_shape"]


def sum_to_shape(g: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """The adjoint of broadcasting to ``g.shape``: sum ``g`` back down to ``shape``.

    Broadcasting copies a value along the leading axes it lacks and along its size-1 axes,
    so each copy's cotangent adds up onto the one value it came from.
    """
    target = tuple(int(d) for d in shape)
    lead = g.ndim - len(target)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(target) if d == 1 and g.shape[lead + i] != 1
    )
    summed = np.sum(g, axis=axes, keepdims=True) if axes else g
    return np.asarray(summed).reshape(target)


def by_provenance(*positions: int) -> VjpRule:
    """A rule for operators that only move data (Slice, Gather ...) out of ``positions``.

    Running the node's own kernel on element ids instead of values tells, for every output
    element, which input element it is a copy of; the cotangent is then scattered back by
    adding each output's cotangent onto its source. Ids start at 1 so that an output the
    kernel fills with zeros (not a copy of anything) sends its cotangent nowhere.
    """

    def rule(call: VjpCall) -> list[np.ndarray | None]:
        arrays = [np.asarray(call.inputs[p]) for p in positions]
        sizes = [a.size for a in arrays]
        offsets = np.cumsum([1, *sizes])
        traced: list[Any] = list(call.inputs)
        for p, array, start in zip(positions, arrays, offsets):
            traced[p] = np.arange(start, start + array.size, dtype=np.int64).reshape(array.shape)
        sources = np.asarray(call.rerun(*traced)[0]).reshape(-1)
        total = np.bincount(
            sources, weights=call.g.reshape(-1).astype(np.float64), minlength=int(offsets[-1])
        )
        grads: list[np.ndarray | None] = [None] * len(call.inputs)
        for p, array, start, size in zip(positions, arrays, offsets, sizes):
            piece = total[start : start + size].reshape(array.shape)
            grads[p] = piece.astype(array.dtype)
        return grads

    return rule
