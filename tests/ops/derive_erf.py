"""Derive the coefficients of ``onnxcraft.ops.special.erf`` (run by hand; needs mpmath).

    python tests/ops/derive_erf.py

Prints the three coefficient tuples that ``src/onnxcraft/ops/special.py`` holds, and the
largest error of each approximation over its interval (in exact arithmetic, before float64
evaluation). How the two intervals are approximated, with a = |x|:

- ``a < SPLIT``: erf(a) = a + a * Q(a**2). Q(s) = erf(sqrt(s)) / sqrt(s) - 1 is entire in s;
  a polynomial of degree 10 holds it to about 1e-19 on [0, SPLIT**2]. Writing the result as
  ``a + small`` keeps the float64 rounding near half an ulp: ``a`` is exact and the
  correction is at most 13% of the result.
- ``SPLIT <= a <= 6``: erf(a) = 1 - exp(-a**2) / a * R(1/a), R = P/D of degree 6/6, fitted
  so that the absolute error of erfc(a) = exp(-a**2) / a * R(1/a) is minimal: that is what
  ``1 - erfc`` needs, since erf is near 1 there. Beyond 6, erfc(a) < 2.2e-17 and erf rounds
  to 1.

Both fits are weighted linear least squares on Chebyshev points, iterated: the rational one
divides by the previous denominator (Loeb's linearisation), and later rounds reweight the
points by their error (Lawson's method), which drives the fit toward the minimax one.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath as mp

mp.mp.dps = 50

SPLIT = mp.mpf(27) / 32  # 0.84375, exact in binary
TOP = mp.mpf(6)
POINTS = 300
ROUNDS = 14


def _fit(
    f: Callable[[mp.mpf], mp.mpf],
    weight: Callable[[mp.mpf], mp.mpf],
    variable: Callable[[mp.mpf], mp.mpf],
    lo: mp.mpf,
    hi: mp.mpf,
    numerator: int,
    denominator: int,
) -> tuple[list[mp.mpf], list[mp.mpf], mp.mpf]:
    """Coefficients (lowest first) of P and D (D[0] = 1) and the largest weighted error."""
    xs = [
        (hi + lo) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (k + mp.mpf(1) / 2) / POINTS)
        for k in range(POINTS)
    ]
    vs = [variable(x) for x in xs]
    fs = [f(x) for x in xs]
    ws = [weight(x) for x in xs]
    previous = [mp.mpf(1)] * POINTS
    emphasis = [mp.mpf(1)] * POINTS
    unknowns = numerator + 1 + denominator
    worst = mp.mpf(0)
    p: list[mp.mpf] = []
    d: list[mp.mpf] = []
    for round_ in range(ROUNDS):
        matrix = mp.matrix(POINTS, unknowns)
        rhs = mp.matrix(POINTS, 1)
        for i in range(POINTS):
            scale = ws[i] * emphasis[i] / previous[i]
            for j in range(numerator + 1):
                matrix[i, j] = scale * vs[i] ** j
            for j in range(1, denominator + 1):
                matrix[i, numerator + j] = -scale * fs[i] * vs[i] ** j
            rhs[i] = scale * fs[i]
        solution, _ = mp.qr_solve(matrix, rhs)
        p = [solution[j] for j in range(numerator + 1)]
        d = [mp.mpf(1)] + [solution[numerator + j] for j in range(1, denominator + 1)]
        previous = [mp.polyval(d[::-1], v) for v in vs]
        errors = [ws[i] * (mp.polyval(p[::-1], vs[i]) / previous[i] - fs[i]) for i in range(POINTS)]
        worst = max(abs(e) for e in errors)
        if round_ >= ROUNDS // 2:
            floor = mp.mpf(10) ** -30  # keeps every point in the fit
            emphasis = [e * abs(err) / worst + floor for e, err in zip(emphasis, errors)]
            total = mp.fsum(emphasis)
            emphasis = [e * POINTS / total for e in emphasis]
    return p, d, worst


def _small(s: mp.mpf) -> mp.mpf:
    if s == 0:
        return 2 / mp.sqrt(mp.pi) - 1
    a = mp.sqrt(s)
    return mp.erf(a) / a - 1


def _scaled_erfc(a: mp.mpf) -> mp.mpf:
    return mp.erfc(a) * mp.exp(a * a) * a


def _check(
    approx: Callable[[mp.mpf], mp.mpf], exact: Callable[[mp.mpf], mp.mpf], lo: mp.mpf, hi: mp.mpf
) -> mp.mpf:
    """The largest error on a grid 20 times denser than the fit's points."""
    n = 20 * POINTS
    return max(abs(approx(x) - exact(x)) for x in (lo + (hi - lo) * k / n for k in range(n + 1)))


def _tuple(name: str, values: list[mp.mpf]) -> str:
    body = ",\n".join(f"    {float(v)!r}" for v in values)
    return f"{name} = (\n{body},\n)"


def main() -> None:
    q, _, _ = _fit(_small, lambda s: mp.mpf(1), lambda s: s, mp.mpf(0), SPLIT**2, 10, 0)
    p, d, _ = _fit(_scaled_erfc, lambda a: mp.exp(-a * a) / a, lambda a: 1 / a, SPLIT, TOP, 6, 6)
    small_error = _check(
        lambda a: a * mp.polyval(q[::-1], a * a),
        lambda a: mp.erf(a) - a,
        mp.mpf(0),
        SPLIT,
    )
    large_error = _check(
        lambda a: mp.exp(-a * a) / a * mp.polyval(p[::-1], 1 / a) / mp.polyval(d[::-1], 1 / a),
        mp.erfc,
        SPLIT,
        TOP,
    )
    print(f"# erf - a on [0, {float(SPLIT)}): largest error {float(small_error):.2e}")
    print(f"# erfc on [{float(SPLIT)}, {float(TOP)}]: largest error {float(large_error):.2e}")
    print(_tuple("_SMALL", q))
    print(_tuple("_LARGE_NUMERATOR", p))
    print(_tuple("_LARGE_DENOMINATOR", d[1:]))


if __name__ == "__main__":
    main()
