"""Special functions as whole-array numpy code: ``erf`` to float64 accuracy.

numpy has no erf, and ``math.erf`` applied element by element costs about 60 ns an element
(the BERT encoder's Gelu spent 60% of the model's time there). :func:`erf` computes the same
values with a few dozen whole-array operations: within one or two ulp of ``math.erf`` in
float64 (``tests/ops/test_special.py`` measures it over a dense grid, the tails, subnormals,
infinities and nan).

With a = |x| and erf odd:

- a < 0.84375: erf(a) = a + a * Q(a**2), Q a polynomial of degree 10. The exact ``a`` plus a
  correction of at most 13% of the result rounds within about half an ulp.
- 0.84375 <= a <= 6: erf(a) = 1 - exp(-a**2) / a * P(1/a) / D(1/a), P/D of degree 6/6
  fitted to the absolute error of erfc, which is what ``1 - erfc`` needs near 1.
- a > 6: erfc(a) < 2.2e-17, so erf(a) rounds to 1 (the second form, clamped at 6, gives
  exactly 1).

The first form runs on every element (on its input clamped to the interval); the second,
three times as long, only on the elements at or above 0.84375, gathered by index
(``np.flatnonzero``, ``np.take``) and written back over the first form's values: about 30
µs a block of 32768 for the gathering, where the second form on every element cost about
three times that (and ``np.where`` or a boolean mask on data where the mask changes at
random costs twenty arithmetic passes). Each element goes through the same operations as
when both forms ran on all of them and were blended by weights 0 and 1, so the values are
the same bit for bit. The coefficients come from
``tests/ops/derive_erf.py`` (weighted least squares iterated toward the minimax fit, in
50-digit arithmetic).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["ERF_SCRATCH_ROWS", "BlockBody", "erf", "erf_into", "map_blocks"]

_SPLIT = 0.84375  # 27/32: below it the polynomial form, from it the erfc form
_TOP = 6.0  # erf(a) rounds to 1 from about 5.9 on

# Q(s) = erf(sqrt(s)) / sqrt(s) - 1 on [0, _SPLIT**2], lowest degree first
_SMALL = (
    0.12837916709551256,
    -0.37612638903183404,
    0.11283791670935558,
    -0.026866170640824274,
    0.005223977576783061,
    -0.0008548323812397352,
    0.00012055200618715476,
    -1.492213495039106e-05,
    1.6401789299926478e-06,
    -1.5715515304003142e-07,
    1.0729533007475758e-08,
)
_LARGE_NUMERATOR = (
    0.5641854288384126,
    5.284479540034399,
    23.292513713131807,
    58.97925696566286,
    86.11360023218178,
    61.72095174844967,
    3.1667707661168808e-06,
)
_LARGE_DENOMINATOR = (
    9.366261410424656,
    41.788480791632516,
    109.18658453701211,
    173.01324409030292,
    155.75805419346025,
    61.72099056274409,
)


def _horner(x: np.ndarray, coefficients: tuple[float, ...], out: np.ndarray) -> np.ndarray:
    """sum(c[k] * x**k) into ``out`` (coefficients lowest first), without temporaries."""
    np.multiply(x, coefficients[-1], out=out)  # the highest coefficient times x
    np.add(out, coefficients[-2], out=out)
    for c in reversed(coefficients[:-2]):
        np.multiply(out, x, out=out)
        np.add(out, c, out=out)
    return out


# Elements per block: the float64 scratch blocks of one call stay in the core's cache, and
# the per-call cost of a numpy operation is small next to a block's work.
_BLOCK = 1 << 15

BlockBody = Callable[[np.ndarray, np.ndarray, np.ndarray], None]


def map_blocks(x: np.ndarray, dtype: Any, body: BlockBody, scratch_rows: int) -> np.ndarray:
    """An elementwise float64 formula over ``x``, block by block, rounded once to ``dtype``.

    ``body(wide, out, scratch)`` gets a block of ``x`` as float64 (its own copy, free to
    overwrite), writes the block's results into ``out`` and may use the rows of ``scratch``
    (``scratch_rows`` float64 arrays of the block's size). Working on blocks keeps every
    temporary in cache and allocates nothing the size of ``x`` but the result.
    """
    flat = np.asarray(x).reshape(-1)
    result = np.empty(np.shape(x), dtype)
    flat_result = result.reshape(-1)
    size = flat.size
    width = min(size, _BLOCK)
    wide = np.empty(width, np.float64)
    out = np.empty(width, np.float64)
    scratch = np.empty((scratch_rows, width), np.float64)
    direct = flat_result.dtype == np.float64  # results written in place, no rounding step
    for start in range(0, size, _BLOCK):
        stop = min(start + _BLOCK, size)
        n = stop - start
        block = wide[:n]
        block[...] = flat[start:stop]
        target = flat_result[start:stop] if direct else out[:n]
        body(block, target, scratch[:, :n])
        if not direct:
            flat_result[start:stop] = target  # rounds to dtype, once
    return result


def erf(x: np.ndarray) -> np.ndarray:
    """The error function of an array, elementwise, as a new float64 array."""
    return map_blocks(x, np.float64, erf_into, ERF_SCRATCH_ROWS)


ERF_SCRATCH_ROWS = 5  # the scratch arrays erf_into needs


def erf_into(x: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> None:
    """erf of the float64 array ``x`` into ``out`` (same size); ``scratch`` holds
    :data:`ERF_SCRATCH_ROWS` float64 arrays of that size. ``x`` is left as it was."""
    a, b, c, d, e = scratch[:ERF_SCRATCH_ROWS]
    np.abs(x, out=a)
    # a < _SPLIT: a + a * Q(a**2), on every element (a clamped to the interval), into out
    np.minimum(a, _constant(_SPLIT, a.size), out=b)
    np.multiply(b, b, out=c)
    _horner(c, _SMALL, out)
    np.multiply(out, b, out=out)
    np.add(out, b, out=out)
    # a >= _SPLIT (nan is not): 1 - exp(-a**2) / a * P(1/a) / D(1/a), on those elements
    # alone, gathered (a clamped at _TOP), then written over their first form
    large = np.flatnonzero(np.greater_equal(a, _SPLIT, out=e.view(np.bool_)[: a.size]))
    if large.size:
        n = large.size
        g, c, d = b[:n], c[:n], d[:n]
        np.take(a, large, out=g)
        np.minimum(g, _constant(_TOP, n), out=g)
        np.divide(1.0, g, out=c)
        np.multiply(g, g, out=g)
        np.negative(g, out=g)
        np.exp(g, out=g)
        np.multiply(g, c, out=g)
        _horner(c, _LARGE_NUMERATOR, d)
        np.multiply(g, d, out=g)
        _horner(c, (1.0, *_LARGE_DENOMINATOR), d)
        np.divide(g, d, out=g)
        np.subtract(1.0, g, out=g)
        out[large] = g
    np.copysign(out, x, out=out)


_constants: dict[float, np.ndarray] = {}


def _constant(value: float, size: int) -> np.ndarray:
    """``size`` float64 copies of ``value``, read-only and shared: numpy's minimum against
    an array runs four times faster than against a scalar (see ops/clamp.py)."""
    held = _constants.get(value)
    if held is None or held.size < size:
        held = np.full(max(size, _BLOCK), value)
        held.setflags(write=False)
        _constants[value] = held
    return held[:size]
