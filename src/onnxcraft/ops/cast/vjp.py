"""VJP rules of Cast and CastLike between float types: the cotangent cast back.

A cast to an integer or bool type is not differentiable and never reaches a rule (its output
carries no gradient); a cast between float types is the identity up to rounding.
"""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.vjp_api import VjpCall, VjpRegistry

__all__ = ["register"]


def _cast(call: VjpCall) -> list[np.ndarray | None]:
    x = np.asarray(call.inputs[0])
    grads: list[np.ndarray | None] = [None] * len(call.inputs)
    grads[0] = call.g.astype(x.dtype)
    return grads


def register(rules: VjpRegistry) -> None:
    rules.add("Cast", _cast)
    rules.add("CastLike", _cast)
