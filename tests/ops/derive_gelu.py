"""Derive the polynomial of ``onnxcraft.ops.fast_gelu`` (run by hand; numpy and math only).

    python tests/ops/derive_gelu.py

The fast Gelu writes erfc(a) = t * exp(P(u) - a**2) with t = 1 / (1 + a / 2) and u the
affine image of t on [-1, 1] (t runs over [1/6, 1] for a in [0, 10]; beyond 10, erfc is
below float32's smallest value). P fits f(t) = log(erfc(a) / t) + a**2, smooth in t, by
weighted least squares on Chebyshev points of u, reweighted by the error round after round
(Lawson's method: toward the minimax fit). In u, the coefficients shrink with the degree,
so evaluating P in float32 adds little rounding. ``math.erfc`` is accurate to float64 in
relative terms over the whole interval, and the fit's error (printed, in exact float64
arithmetic on a dense grid) is far below float32's half ulp.
"""

from __future__ import annotations

import math

import numpy as np

A_MOST = 10.0
T_LEAST = 1 / (1 + A_MOST / 2)
MIDDLE, HALF = (1 + T_LEAST) / 2, (1 - T_LEAST) / 2  # t = MIDDLE + HALF * u
DEGREE = 9
POINTS = 4000
ROUNDS = 40


def target(t: np.ndarray) -> np.ndarray:
    a = 2 / t - 2
    return np.array([math.log(math.erfc(v) / w) + v * v for v, w in zip(a, t, strict=True)])


def fit() -> np.ndarray:
    u = np.cos(np.pi * (np.arange(POINTS) + 0.5) / POINTS)
    f = target(MIDDLE + HALF * u)
    powers = np.vander(u, DEGREE + 1, increasing=True)
    weights = np.ones(POINTS)
    for _ in range(ROUNDS):
        coefficients = np.linalg.lstsq(powers * weights[:, None], f * weights, rcond=None)[0]
        weights *= np.sqrt(np.abs(powers @ coefficients - f) + 1e-30)
        weights /= weights.max()
    return coefficients


def main() -> None:
    coefficients = fit()
    u = np.linspace(-1, 1, 200_001)
    error = np.abs(np.polynomial.polynomial.polyval(u, coefficients) - target(MIDDLE + HALF * u))
    print(f"u = (t - {MIDDLE!r}) / {HALF!r}")
    print("P (lowest degree first):")
    print(tuple(float(c) for c in coefficients))
    print(f"largest error of the exponent: {error.max():.3g}")


if __name__ == "__main__":
    main()
