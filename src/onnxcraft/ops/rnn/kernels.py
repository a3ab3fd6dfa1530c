"""Kernels for the recurrent layers RNN, GRU and LSTM.

One time loop serves all three: per direction, the input projection of every step is computed
with one matrix multiply up front, and each step then applies the cell's gate equations.
``sequence_lens`` stops a batch entry early (its state is kept, its outputs are zero);
``layout=1`` puts the batch axis first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail
from onnxcraft.ops.run_guard import ticker
from onnxcraft.ops.versions import versions

__all__ = ["register"]

Activation = Callable[[np.ndarray], np.ndarray]

# Default (alpha, beta) of the parameterised activations (0.0 where one is unused).
_PARAMS = {
    "affine": (1.0, 0.0),
    "leakyrelu": (0.01, 0.0),
    "thresholdedrelu": (1.0, 0.0),
    "scaledtanh": (1.0, 1.0),
    "hardsigmoid": (0.2, 0.5),
    "elu": (1.0, 0.0),
}


def _activation(name: str, alpha: float | None, beta: float | None) -> Activation:
    key = name.lower()
    a = alpha if alpha is not None else _PARAMS.get(key, (0.0, 0.0))[0]
    b = beta if beta is not None else _PARAMS.get(key, (0.0, 0.0))[1]
    table: dict[str, Activation] = {
        "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
        "tanh": np.tanh,
        "relu": lambda x: np.maximum(x, 0),
        "affine": lambda x: a * x + b,
        "leakyrelu": lambda x: np.where(x >= 0, x, a * x),
        "thresholdedrelu": lambda x: np.where(x > a, x, 0),
        "scaledtanh": lambda x: a * np.tanh(b * x),
        "hardsigmoid": lambda x: np.clip(a * x + b, 0, 1),
        "elu": lambda x: np.where(x >= 0, x, a * (np.exp(np.minimum(x, 0)) - 1)),
        "softsign": lambda x: x / (1 + np.abs(x)),
        "softplus": lambda x: np.logaddexp(0, x),
    }
    if key not in table:
        fail("RNN", f"unknown activation {name!r}")
    return table[key]


def _activations(
    names: list[str],
    alpha: list[float] | None,
    beta: list[float] | None,
    per_direction: int,
    directions: int,
) -> list[list[Activation]]:
    if len(names) == per_direction and directions == 2:
        names = names * 2
    if len(names) == 2 * per_direction and directions == 1:
        names = names[:per_direction]  # a default written for both directions
    if len(names) != per_direction * directions:
        fail("RNN", f"expected {per_direction * directions} activations, got {names}")
    alphas, betas = list(alpha or []), list(beta or [])
    result: list[Activation] = []
    for name in names:
        takes = name.lower() in _PARAMS
        a = alphas.pop(0) if takes and alphas else None
        b = betas.pop(0) if takes and betas and _PARAMS[name.lower()][1] is not None else None
        result.append(_activation(name, a, b))
    return [result[d * per_direction : (d + 1) * per_direction] for d in range(directions)]


def _run(
    kind: str,
    x: np.ndarray,
    w: np.ndarray,
    r: np.ndarray,
    b: np.ndarray | None,
    lengths: np.ndarray | None,
    h0: np.ndarray | None,
    c0: np.ndarray | None,
    p: np.ndarray | None,
    *,
    hidden: int,
    direction: str,
    layout: int,
    clip: float | None,
    activations: list[list[Activation]],
    linear_before_reset: int = 0,
    input_forget: int = 0,
) -> tuple[np.ndarray, ...]:
    if layout:
        x = x.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    steps, batch, _ = x.shape
    directions = 2 if direction == "bidirectional" else 1
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    lens = np.full(batch, steps, np.int64) if lengths is None else lengths.astype(np.int64)
    y = np.zeros((steps, directions, batch, hidden), x.dtype)
    y_h = np.zeros((directions, batch, hidden), x.dtype)
    y_c = np.zeros((directions, batch, hidden), x.dtype)
    tick = ticker()  # a long sequence stops between time steps when cancelled or out of time
    for d in range(directions):
        reverse = direction == "reverse" or d == 1
        wb = np.zeros(gates * hidden, x.dtype) if b is None else b[d, : gates * hidden]
        rb = np.zeros(gates * hidden, x.dtype) if b is None else b[d, gates * hidden :]
        projected = x @ w[d].T + wb  # (steps, batch, gates * hidden)
        h = np.zeros((batch, hidden), x.dtype) if h0 is None else h0[d].copy()
        c = np.zeros((batch, hidden), x.dtype) if c0 is None else c0[d].copy()
        acts = activations[d]
        for s in range(steps):
            tick()
            active = s < lens  # batch entries still running at this step
            # Reverse direction reads each sequence backwards from its own last valid step.
            t = np.where(reverse, lens - 1 - s, s) if reverse else np.full(batch, s)
            t = np.clip(t, 0, steps - 1)
            xt = projected[t, np.arange(batch)]
            if kind == "RNN":
                pre = xt + h @ r[d].T + rb
                new_h = acts[0](np.clip(pre, -clip, clip) if clip else pre)
                new_c = c
            elif kind == "GRU":
                rz = h @ r[d][: 2 * hidden].T + rb[: 2 * hidden]
                zr = xt[:, : 2 * hidden] + rz
                zr = np.clip(zr, -clip, clip) if clip else zr
                z = acts[0](zr[:, :hidden])
                rr = acts[0](zr[:, hidden:])
                rh, rbh = r[d][2 * hidden :], rb[2 * hidden :]
                if linear_before_reset:
                    pre = xt[:, 2 * hidden :] + rr * (h @ rh.T + rbh)
                else:
                    pre = xt[:, 2 * hidden :] + (rr * h) @ rh.T + rbh
                hh = acts[1](np.clip(pre, -clip, clip) if clip else pre)
                new_h = (1 - z) * hh + z * h
                new_c = c
            else:  # LSTM, gates in the order i, o, f, c
                pre = xt + h @ r[d].T + rb
                pi, po, pf = (
                    np.zeros((3, hidden), x.dtype) if p is None else p[d].reshape(3, hidden)
                )
                gi = pre[:, :hidden] + pi * c
                gf = pre[:, 2 * hidden : 3 * hidden] + pf * c
                if clip:
                    gi, gf = np.clip(gi, -clip, clip), np.clip(gf, -clip, clip)
                i = acts[0](gi)
                f = 1 - i if input_forget else acts[0](gf)
                gc = pre[:, 3 * hidden :]
                cand = acts[1](np.clip(gc, -clip, clip) if clip else gc)
                new_c = f * c + i * cand
                go = pre[:, hidden : 2 * hidden] + po * new_c
                o = acts[0](np.clip(go, -clip, clip) if clip else go)
                new_h = o * acts[2](new_c)
            mask = active[:, None]
            h = np.where(mask, new_h, h)
            c = np.where(mask, new_c, c)
            rows = np.arange(batch)[active]
            y[t[active], d, rows] = new_h[active]
        y_h[d], y_c[d] = h, c
    if layout:
        return y.transpose(2, 0, 1, 3), y_h.transpose(1, 0, 2), y_c.transpose(1, 0, 2)
    return y, y_h, y_c


def _kernel(kind: str, per_direction: int, defaults: list[str]) -> Callable[..., Any]:
    @compute_in_float32
    def kernel(
        x: Any,
        w: Any,
        r: Any,
        b: Any = None,
        sequence_lens: Any = None,
        initial_h: Any = None,
        initial_c: Any = None,
        p: Any = None,
        *,
        hidden_size: int | None = None,
        direction: str = "forward",
        layout: int = 0,
        activations: list[str] | None = None,
        activation_alpha: list[float] | None = None,
        activation_beta: list[float] | None = None,
        clip: float | None = None,
        linear_before_reset: int = 0,
        input_forget: int = 0,
        output_sequence: int = 0,
    ) -> tuple[np.ndarray, ...]:
        x, w, r = np.asarray(x), np.asarray(w), np.asarray(r)
        if direction == "foward" and kind == "GRU":
            direction = "forward"  # GRU-1's default, misspelt so in the standard itself
        if direction not in ("forward", "reverse", "bidirectional"):
            fail(kind, f"direction must be forward, reverse or bidirectional, got {direction!r}")
        directions = 2 if direction == "bidirectional" else 1
        hidden = hidden_size if hidden_size is not None else r.shape[-1]
        acts = _activations(
            list(activations or defaults),
            activation_alpha,
            activation_beta,
            per_direction,
            directions,
        )
        y, y_h, y_c = _run(
            kind,
            x,
            w,
            r,
            None if b is None else np.asarray(b),
            None if sequence_lens is None else np.asarray(sequence_lens),
            None if initial_h is None else np.asarray(initial_h),
            None if initial_c is None else np.asarray(initial_c),
            None if p is None else np.asarray(p),
            hidden=hidden,
            direction=direction,
            layout=layout,
            clip=clip,
            activations=acts,
            linear_before_reset=linear_before_reset,
            input_forget=input_forget,
        )
        return (y, y_h, y_c) if kind == "LSTM" else (y, y_h)

    return kernel


def register(kernels: KernelRegistry) -> None:
    kernels.add("RNN", _kernel("RNN", 1, ["Tanh"]), since=versions("RNN"))
    kernels.add("GRU", _kernel("GRU", 2, ["Sigmoid", "Tanh"]), since=versions("GRU"))
    kernels.add("LSTM", _kernel("LSTM", 3, ["Sigmoid", "Tanh", "Tanh"]), since=versions("LSTM"))
