"""Gelu of float32 values in float32 arithmetic, for the evaluator's prepared plan
(``fuse=True``, :mod:`onnxcraft.evaluate.fast_gelus`).

The Gelu kernel (``ops/activation/kernels.py``) computes 0.5 x (1 + erf(x / sqrt 2)) in
float64, with erf to float64 accuracy (``ops/special.py``), and rounds once: about forty
float64 operations a block, 30 ns an element, a quarter of the BERT encoder's run at
batch 1. Here, for float32 input, with a = |x| / sqrt 2:

    Gelu(x) = x * Phi(x),   Phi(x) = h for x <= 0 and 1 - h for x > 0,   h = erfc(a) / 2,
    erfc(a) = t * exp(P(u) - x * x / 2),   t = 1 / (1 + a / 2),   u = (t - MIDDLE) / HALF,

P a polynomial of degree 9 fitted to log(erfc(a) / t) + a**2 for a in [0, 10]
(``tests/ops/derive_gelu.py``; within 4.5e-8 of it; beyond, erfc is below float32's range
and exp gives 0), with log 2 taken into its constant so that exp gives h. Phi as h or 1 - h
keeps h's relative accuracy where Phi is small: no 1 + erf(z) cancelling for negative x.
The exponent's x * x / 2 is rounded once (x is exact), which bounds the error where it is
largest: about a float32 ulp per unit of x * x / 2. Measured against erfc in float64 over
two million float32 values in [-13, 13] (``tests/evaluate/test_fast_gelus.py``): within
8 float32 ulp for |x| < 1, 12 for |x| < 3, 35 for |x| < 6 and 130 beyond (where |Gelu| is
below 1e-8 |x|), and below float32's normal range (x under -13.2, where Phi is subnormal
first) within |x| + 1 of its smallest subnormal step; the written kernel is within half an
ulp. About 35 float32 operations a
block, no gathering: a third of the written kernel's time on the encoder's activations.

Special values come out as the written kernel's: +inf gives +inf, -inf and nan give nan,
-0.0 gives -0.0, and a value whose square overflows gives x * 0 or x * 1. Where the written
kernel's float64 1 + erf(z) itself cancels to nothing (x below about -7.5, |Gelu| below
1e-13), it gives -0.0; here the value is the true one, rounded (it differs there from the
written kernel by less than 1e-13 in absolute terms).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["gelu_float32"]

MIDDLE, HALF = 7 / 12, 5 / 12  # t = MIDDLE + HALF * u for t in [1/6, 1], a in [0, 10]
# P(u), lowest degree first (tests/ops/derive_gelu.py), then log 2 out of its constant
_P = (
    -0.558595395654717,
    0.5703070707499328,
    0.015747217550223385,
    -0.029469885515660127,
    -0.0010629599548362917,
    0.0037057985357876397,
    -0.00022668664020384431,
    -0.0005320313444252149,
    7.309210931997625e-05,
    5.382538785335935e-05,
)
_COEFFICIENTS = tuple(np.float32(c) for c in (_P[0] - math.log(2), *_P[1:]))
_F32 = np.float32
_BLOCK = 1 << 15  # float32 values a block: its five working rows stay in the core's L2


def gelu_float32(x: np.ndarray) -> np.ndarray:
    """Gelu (exact form) of the float32 array ``x``, as a new float32 array."""
    flat = np.ascontiguousarray(x).reshape(-1)
    result = np.empty(flat.size, np.float32)
    width = min(flat.size, _BLOCK)
    rows = np.empty((4, width), np.float32)
    with np.errstate(all="ignore"):  # x * x overflowing, inf * 0: the values say it
        for start in range(0, flat.size, _BLOCK):
            stop = min(start + _BLOCK, flat.size)
            _gelu_block(flat[start:stop], result[start:stop], rows[:, : stop - start])
    return result.reshape(x.shape)


def _gelu_block(x: np.ndarray, out: np.ndarray, rows: np.ndarray) -> None:
    u, t, p, q = rows
    np.abs(x, out=u)
    np.multiply(u, _F32(0.5 / math.sqrt(2)), out=t)
    np.add(t, _F32(1), out=t)
    np.divide(_F32(1), t, out=t)  # t = 1 / (1 + a / 2)
    np.multiply(t, _F32(1 / HALF), out=u)
    np.subtract(u, _F32(MIDDLE / HALF), out=u)
    c = _COEFFICIENTS
    np.multiply(u, c[-1], out=p)
    np.add(p, c[-2], out=p)
    for coefficient in reversed(c[:-2]):
        np.multiply(p, u, out=p)
        np.add(p, coefficient, out=p)
    np.multiply(x, x, out=q)
    np.multiply(q, _F32(0.5), out=q)
    np.subtract(p, q, out=p)
    np.exp(p, out=p)
    np.multiply(p, t, out=p)  # h = erfc(a) / 2
    # (numpy's greater and a product with its booleans: np.heaviside runs 30 times slower)
    positive = np.greater(x, _F32(0), out=q.view(np.bool_)[: x.size])  # (nan: not, h is nan)
    np.multiply(p, _F32(-2), out=t)
    np.add(t, _F32(1), out=t)
    np.multiply(t, positive, out=t)
    np.add(t, p, out=t)  # Phi: h, or h + (1 - 2h)
    np.multiply(x, t, out=out)
