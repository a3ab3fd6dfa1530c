"""VJP rules of the arithmetic family: Add, Sub, Mul, Div, Pow, Sum, Mean, Max, Min.

Inputs broadcast against each other, so every input's cotangent is summed back down to its
own shape. Versions before 7 broadcast B onto a run of A's axes (``broadcast``/``axis``):
the rules reshape B as the kernel did and undo that reshape at the end.
"""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.arithmetic.kernels import legacy_broadcast
from onnxcraft.ops.vjp_api import VjpCall, VjpRegistry
from onnxcraft.ops.vjp_common import sum_to_shape

__all__ = ["register"]

Grads = list[np.ndarray | None]


def _operands(call: VjpCall) -> tuple[np.ndarray, np.ndarray]:
    """A and B as the kernel combined them (B reshaped by the opset < 7 rule)."""
    a, b = np.asarray(call.inputs[0]), np.asarray(call.inputs[1])
    if call.attr("broadcast"):
        b = legacy_broadcast(call.op_type, a, b, 1, call.attr("axis"))
    return a, b


def _pair(call: VjpCall, ga: np.ndarray | None, gb: np.ndarray | None) -> Grads:
    """Sum each cotangent down to its input's shape (B's as the kernel reshaped it first)."""
    a, b = _operands(call)
    original = np.shape(call.inputs[1])
    return [
        None if ga is None or not call.wants(0) else sum_to_shape(ga, a.shape),
        None if gb is None or not call.wants(1) else sum_to_shape(gb, b.shape).reshape(original),
    ]


def _add(call: VjpCall) -> Grads:
    return _pair(call, call.g, call.g)


def _sub(call: VjpCall) -> Grads:
    return _pair(call, call.g, -call.g)


def _mul(call: VjpCall) -> Grads:
    a, b = _operands(call)
    g = call.g
    return _pair(call, g * b if call.wants(0) else None, g * a if call.wants(1) else None)


def _div(call: VjpCall) -> Grads:
    a, b = _operands(call)
    g = call.g
    with np.errstate(all="ignore"):
        ga = g / b if call.wants(0) else None
        gb = -g * a / (b * b) if call.wants(1) else None
    return _pair(call, ga, gb)


def _pow(call: VjpCall) -> Grads:
    base, exponent = _operands(call)
    power = exponent.astype(base.dtype, copy=False)
    g = call.g
    with np.errstate(all="ignore"):
        ga = g * power * np.power(base, power - 1) if call.wants(0) else None
        # d(a**b)/db = a**b * log(a); for a <= 0 it has no real value: 0, as a subgradient.
        log = np.log(np.where(base > 0, base, 1))
        gb = g * np.asarray(call.outputs[0]) * log if call.wants(1) else None
    return _pair(call, ga, gb)


def _sum(call: VjpCall) -> Grads:
    return [
        sum_to_shape(call.g, np.shape(x)) if call.wants(i) else None
        for i, x in enumerate(call.inputs)
    ]


def _mean(call: VjpCall) -> Grads:
    share = call.g / np.asarray(len(call.inputs), call.g.dtype)
    return [
        sum_to_shape(share, np.shape(x)) if call.wants(i) else None
        for i, x in enumerate(call.inputs)
    ]


def _extremum(call: VjpCall) -> Grads:
    """Max/Min: each element's cotangent goes to the first input holding the result."""
    result = np.asarray(call.outputs[0])
    g = call.g
    taken = np.zeros(result.shape, bool)
    grads: Grads = []
    for i, x in enumerate(call.inputs):
        hit = (np.asarray(x) == result) & ~taken
        taken |= hit
        grads.append(sum_to_shape(np.where(hit, g, 0), np.shape(x)) if call.wants(i) else None)
    return grads


def register(rules: VjpRegistry) -> None:
    for name, rule in (
        ("Add", _add),
        ("Sub", _sub),
        ("Mul", _mul),
        ("Div", _div),
        ("Pow", _pow),
        ("Sum", _sum),
        ("Mean", _mean),
        ("Max", _extremum),
        ("Min", _extremum),
    ):
        rules.add(name, rule)
