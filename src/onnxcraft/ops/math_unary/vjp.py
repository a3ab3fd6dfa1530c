"""VJP rules of unary math: Neg, Abs, Exp, Log, Sqrt, Reciprocal, Tanh, Sin, Cos, Erf.

Each rule multiplies the cotangent by the derivative, written with the forward output where
that is what the derivative is made of (exp, sqrt, tanh).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from onnxcraft.ops.vjp_api import VjpCall, VjpRegistry

__all__ = ["register"]

# Each derivative takes the input x and the output y and returns dy/dx, elementwise.
Derivative = Callable[[np.ndarray, np.ndarray], np.ndarray]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

_DERIVATIVES: dict[str, Derivative] = {
    "Neg": lambda x, y: np.full_like(x, -1),
    "Abs": lambda x, y: np.sign(x),  # 0 at 0: a subgradient
    "Exp": lambda x, y: y,
    "Log": lambda x, y: 1 / x,
    "Sqrt": lambda x, y: 1 / (2 * y),
    "Reciprocal": lambda x, y: -(y * y),
    "Tanh": lambda x, y: 1 - y * y,
    "Sin": lambda x, y: np.cos(x),
    "Cos": lambda x, y: -np.sin(x),
    "Erf": lambda x, y: _TWO_OVER_SQRT_PI * np.exp(-(x * x)),
}


def _unary(derivative: Derivative) -> Callable[[VjpCall], list[np.ndarray | None]]:
    def rule(call: VjpCall) -> list[np.ndarray | None]:
        x, y = np.asarray(call.inputs[0]), np.asarray(call.outputs[0])
        with np.errstate(all="ignore"):
            return [np.asarray(call.g * derivative(x, y)).astype(x.dtype, copy=False)]

    return rule


def register(rules: VjpRegistry) -> None:
    for name, derivative in _DERIVATIVES.items():
        rules.add(name, _unary(derivative))
