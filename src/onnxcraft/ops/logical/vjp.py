"""VJP rule of Where: each branch receives the cotangent where it was chosen.

The condition gets no gradient; the branches broadcast, so their cotangents are summed back
down to their shapes.
"""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.vjp_api import VjpCall, VjpRegistry
from onnxcraft.ops.vjp_common import sum_to_shape

__all__ = ["register"]


def _where(call: VjpCall) -> list[np.ndarray | None]:
    condition = np.asarray(call.inputs[0], dtype=bool)
    g = call.g
    zero = np.zeros((), g.dtype)
    chosen = sum_to_shape(np.where(condition, g, zero), np.shape(call.inputs[1]))
    other = sum_to_shape(np.where(condition, zero, g), np.shape(call.inputs[2]))
    return [None, chosen if call.wants(1) else None, other if call.wants(2) else None]


def register(rules: VjpRegistry) -> None:
    rules.add("Where", _where)
