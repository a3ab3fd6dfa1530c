"""Kernels of the training family (domain ai.onnx.preview.training): the optimizers Adagrad, Adam
and Momentum (standard and Nesterov).

Each optimizer updates one or several tensors in one node. The inputs are the learning rate
``R``, the update count ``T``, then one group per kind of tensor, each group holding one tensor
per optimized variable: ``X1..Xn, G1..Gn`` and then the optimizer's state (``H1..Hn`` for
Adagrad, ``V1..Vn`` for Momentum, ``V1..Vn, H1..Hn`` for Adam). The outputs are the new values
of the same groups in the same order, without the gradients. Every formula is the standard's,
applied to each variable independently and computed in the variable's element type (the scalar
learning-rate factors are computed in float64 first).

The ``Gradient`` operator of this domain differentiates the enclosing graph; it is not
evaluated here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import fail
from onnxcraft.ops.versions import versions

__all__ = ["adagrad", "adam", "momentum", "register"]

_DOMAIN = "ai.onnx.preview.training"


# -- inputs ---------------------------------------------------------------------------------------


def _scalar(op: str, name: str, value: Any, kind: str) -> float:
    """A one-element input (the learning rate R or the update count T) as a Python number."""
    array = np.asarray(value)
    if array.size != 1:
        fail(op, f"input {name} must be a scalar, got shape {list(array.shape)}")
    if array.dtype.kind not in kind:
        expected = "an integer" if kind == "iu" else "a float"
        fail(op, f"input {name} must be {expected} tensor, got {array.dtype}")
    return float(array.reshape(()))


def _groups(op: str, tensors: tuple[Any, ...], names: tuple[str, ...]) -> list[list[np.ndarray]]:
    """Split the variadic tensors into one list per group name (X, G, then the state)."""
    count = len(names)
    if not tensors or len(tensors) % count:
        fail(
            op,
            f"after R and T the inputs must be {count} groups of equal size "
            f"({', '.join(n + '1..' + n + 'n' for n in names)}), got {len(tensors)} tensors",
        )
    n = len(tensors) // count
    groups = [[np.asarray(t) for t in tensors[i * n : (i + 1) * n]] for i in range(count)]
    for i, x in enumerate(groups[0]):
        if x.dtype not in (np.float32, np.float64):
            fail(op, f"input {names[0]}{i + 1} must be a float or double tensor, got {x.dtype}")
        for name, group in zip(names[1:], groups[1:]):
            other = group[i]
            if other.shape != x.shape or other.dtype != x.dtype:
                fail(
                    op,
                    f"input {name}{i + 1} must have the type and shape of {names[0]}{i + 1} "
                    f"({x.dtype}, {list(x.shape)}), got {other.dtype}, {list(other.shape)}",
                )
    return groups


def _required(op: str, name: str, value: Any) -> Any:
    if value is None:
        fail(op, f"the {name} attribute is required")
    return value


# -- the optimizers -------------------------------------------------------------------------------


def adagrad(
    r: Any,
    t: Any,
    *tensors: Any,
    decay_factor: float = 0.0,
    epsilon: float = 1e-6,
    norm_coefficient: float = 0.0,
) -> tuple[np.ndarray, ...]:
    """One Adagrad step: inputs R, T, X1..Xn, G1..Gn, H1..Hn; outputs X_new..., H_new...."""
    rate = _scalar("Adagrad", "R", r, "f")
    count = _scalar("Adagrad", "T", t, "iu")
    xs, gs, hs = _groups("Adagrad", tensors, ("X", "G", "H"))
    factor = rate / (1.0 + count * decay_factor)  # the decayed learning rate
    new_x, new_h = [], []
    for x, g, h in zip(xs, gs, hs):
        cast = x.dtype.type
        g_reg = cast(norm_coefficient) * x + g  # adds the gradient of 0.5 * norm * ||X||^2
        h_new = h + g_reg * g_reg
        new_x.append(x - cast(factor) * g_reg / (np.sqrt(h_new) + cast(epsilon)))
        new_h.append(h_new)
    return (*new_x, *new_h)


def _adam_rate(rate: float, count: float, alpha: float, beta: float) -> float:
    """The bias-corrected learning rate: R * sqrt(1 - beta**T) / (1 - alpha**T) once T > 0."""
    if count <= 0:
        return rate
    denominator = 1.0 - math.pow(alpha, count)
    if denominator == 0.0:
        fail("Adam", f"alpha={alpha} makes the bias correction 1 - alpha**T zero (T={count:g})")
    remaining = 1.0 - math.pow(beta, count)
    if remaining < 0.0:
        fail("Adam", f"beta={beta} makes 1 - beta**T negative (T={count:g}): no square root")
    return rate * math.sqrt(remaining) / denominator


def adam(
    r: Any,
    t: Any,
    *tensors: Any,
    alpha: float = 0.9,
    beta: float = 0.999,
    epsilon: float = 1e-6,
    norm_coefficient: float = 0.0,
    norm_coefficient_post: float = 0.0,
) -> tuple[np.ndarray, ...]:
    """One Adam step: inputs R, T, X.., G.., V.., H..; outputs X_new.., V_new.., H_new..."""
    rate = _scalar("Adam", "R", r, "f")
    count = _scalar("Adam", "T", t, "iu")
    xs, gs, vs, hs = _groups("Adam", tensors, ("X", "G", "V", "H"))
    adjusted = _adam_rate(rate, count, alpha, beta)
    new_x, new_v, new_h = [], [], []
    for x, g, v, h in zip(xs, gs, vs, hs):
        cast = x.dtype.type
        g_reg = cast(norm_coefficient) * x + g
        v_new = cast(alpha) * v + cast(1.0 - alpha) * g_reg
        h_new = cast(beta) * h + cast(1.0 - beta) * g_reg * g_reg
        x_new = x - cast(adjusted) * v_new / (np.sqrt(h_new) + cast(epsilon))
        new_x.append(cast(1.0 - norm_coefficient_post) * x_new)  # post-update regularization
        new_v.append(v_new)
        new_h.append(h_new)
    return (*new_x, *new_v, *new_h)


def momentum(
    r: Any,
    t: Any,
    *tensors: Any,
    alpha: float | None = None,
    beta: float | None = None,
    mode: str | None = None,
    norm_coefficient: float | None = None,
) -> tuple[np.ndarray, ...]:
    """One step of SGD with momentum: inputs R, T, X.., G.., V..; outputs X_new.., V_new..."""
    alpha = float(_required("Momentum", "alpha", alpha))
    beta = float(_required("Momentum", "beta", beta))
    norm = float(_required("Momentum", "norm_coefficient", norm_coefficient))
    mode = _required("Momentum", "mode", mode)
    if mode not in ("standard", "nesterov"):
        fail("Momentum", f"mode must be 'standard' or 'nesterov', got {mode!r}")
    rate = _scalar("Momentum", "R", r, "f")
    count = _scalar("Momentum", "T", t, "iu")
    xs, gs, vs = _groups("Momentum", tensors, ("X", "G", "V"))
    beta_adjusted = beta if count > 0 else 1.0  # the first step takes the whole gradient
    new_x, new_v = [], []
    for x, g, v in zip(xs, gs, vs):
        cast = x.dtype.type
        g_reg = cast(norm) * x + g
        v_new = cast(alpha) * v + cast(beta_adjusted) * g_reg
        step = g_reg + cast(alpha) * v_new if mode == "nesterov" else v_new
        new_x.append(x - cast(rate) * step)
        new_v.append(v_new)
    return (*new_x, *new_v)


def register(kernels: KernelRegistry) -> None:
    """Add the optimizers; ``Gradient`` is left out (it needs automatic differentiation)."""
    for op_type, fn in (("Adagrad", adagrad), ("Adam", adam), ("Momentum", momentum)):
        kernels.add(op_type, fn, since=versions(op_type, _DOMAIN), domain=_DOMAIN)
