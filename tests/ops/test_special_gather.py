"""erf's second form, run only on the gathered elements at or above 0.84375, gives what
running both forms on every element and blending them by weights 0 and 1 gives, bit for bit.

The reference below is that blend (how ``special.erf_into`` computed before it gathered),
built from the module's own coefficients.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft.ops import special
from onnxcraft.ops.activation.kernels import gelu


def _polynomial(x: np.ndarray, coefficients: tuple[float, ...]) -> np.ndarray:
    result = np.full_like(x, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        result = result * x + c
    return result


def _blended_erf(x: np.ndarray) -> np.ndarray:
    a = np.abs(x)
    small = np.minimum(a, special._SPLIT)
    first = _polynomial(small * small, special._SMALL) * small + small
    b = np.clip(a, special._SPLIT, special._TOP)
    inverse = 1.0 / b
    second = np.exp(-(b * b)) * inverse
    second = second * _polynomial(inverse, special._LARGE_NUMERATOR)
    second = second / _polynomial(inverse, (1.0, *special._LARGE_DENOMINATOR))
    second = 1.0 - second
    weight = (a < special._SPLIT).astype(np.float64)
    return np.copysign(first * weight + second * (1.0 - weight), x)


_SPECIALS = [0.0, -0.0, np.nan, np.inf, -np.inf, special._SPLIT, -special._SPLIT, 6.0, 5e-324]


@settings(max_examples=60, deadline=None)
@given(
    size=st.sampled_from([0, 1, 7, 1000, special._BLOCK - 1, special._BLOCK + 3]),
    scale=st.sampled_from([0.01, 0.5, 1.0, 3.0, 100.0]),
    seed=st.integers(0, 2**16),
)
def test_gathered_equals_blended(size: int, scale: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(size) * scale
    if size:
        x[rng.integers(0, size, min(size, 9))] = rng.choice(_SPECIALS, min(size, 9))
    with np.errstate(all="ignore"):
        expected = _blended_erf(x)
    got = special.erf(x)
    same = (got == expected) | (np.isnan(got) & np.isnan(expected))
    assert same.all()
    assert (np.signbit(got) == np.signbit(expected))[~np.isnan(got)].all()


def test_blocks_all_small_all_large_and_mixed() -> None:
    block = special._BLOCK
    x = np.concatenate(
        [np.linspace(-0.8, 0.8, block), np.linspace(0.9, 8.0, block), np.linspace(-9, 9, block)]
    )
    assert np.array_equal(special.erf(x), _blended_erf(x))
    # Gelu reads erf through the same blocks; float32 rounds the float64 result once.
    x32 = x.astype(np.float32)
    wide = x32.astype(np.float64)
    expected = (0.5 * wide * (1.0 + _blended_erf(wide / np.sqrt(2)))).astype(np.float32)
    assert np.array_equal(gelu(x32), expected)
