"""The whole-array erf (``onnxcraft.ops.special.erf``) against Python's ``math.erf``.

``tests/ops/measure_erf.py`` runs the exhaustive versions of these checks (every positive
float32 below 4, denser float64 grids); its results are in ``docs/evaluation.md``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from onnxcraft.ops.special import erf

_math_erf = np.frompyfunc(math.erf, 1, 1)
MAX_ULP = 2.0  # the largest distance from math.erf measured over every grid


def reference(x: np.ndarray) -> np.ndarray:
    return np.asarray(_math_erf(x), dtype=np.float64)


def ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    return np.abs(got - want) / np.spacing(np.abs(want))


@pytest.mark.parametrize(
    "grid",
    [
        pytest.param(np.linspace(-7.0, 7.0, 400_001), id="dense [-7, 7]"),
        pytest.param(0.84375 + np.linspace(-1e-3, 1e-3, 40_001), id="where the forms meet"),
        pytest.param(np.geomspace(5e-324, 1e-3, 40_001), id="tiny and subnormal"),
        pytest.param(-np.geomspace(5.0, 1.7e308, 20_001), id="negative tail"),
    ],
)
def test_float64_within_two_ulp_of_math_erf(grid: np.ndarray) -> None:
    got = erf(grid)
    assert got.dtype == np.float64 and got.shape == grid.shape
    assert ulps(got, reference(grid)).max() <= MAX_ULP


def test_special_values() -> None:
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 5e-324, -5e-324, 6.0, -6.0, 1e300])
    got = erf(x)
    assert got[0] == 1.0 and got[1] == -1.0
    assert np.isnan(got[2])
    assert got[3] == 0.0 and not np.signbit(got[3])
    assert got[4] == 0.0 and np.signbit(got[4])  # erf is odd: -0 stays -0
    assert got[5] == math.erf(5e-324) and got[6] == math.erf(-5e-324)
    assert list(got[7:]) == [math.erf(6.0), math.erf(-6.0), 1.0]


@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=0, max_dims=3, max_side=40),
        elements=st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
    )
)
@example(np.array(0.84375))
@example(np.array([-0.0, 5e-324, 1e-310]))
def test_any_float64_array(x: np.ndarray) -> None:
    got = erf(x)
    assert got.shape == x.shape
    want = reference(x)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    assert (ulps(got[finite], want[finite]) <= MAX_ULP).all()
    assert np.array_equal(erf(-x), -got, equal_nan=True)  # odd, exactly


def test_blocks_and_layouts() -> None:
    """Arrays larger than one block, strided and empty ones."""
    x = np.random.default_rng(0).standard_normal((3, 50_001)) * 3
    strided = x[:, ::3]
    assert np.array_equal(erf(x)[:, ::3], erf(strided))
    assert ulps(erf(x), reference(x)).max() <= MAX_ULP
    assert erf(np.empty((0, 4))).shape == (0, 4)
    assert erf(np.float64(0.5)).shape == ()


def _near_float32_midpoint(value: float) -> bool:
    """Whether ``value`` lies within two float64 ulp of a point halfway between two float32
    neighbours: where a 2-ulp float64 error may round to the other float32."""
    low = np.float32(value)
    other = np.nextafter(low, np.float32(np.inf if low < value else -np.inf))
    middle = (float(low) + float(other)) / 2
    return abs(value - middle) <= 2 * float(np.spacing(value))


def test_float32_rounding_matches_math_erf() -> None:
    """Rounded to float32, erf equals math.erf rounded to float32, except where the exact
    value sits on a float32 midpoint within float64's error (measured exhaustively by
    tests/ops/measure_erf.py --float32)."""
    rng = np.random.default_rng(32)
    bits = rng.integers(1, np.float32(4.0).view(np.uint32), 1_000_000, dtype=np.uint32)
    x = bits.view(np.float32).astype(np.float64)
    ours, theirs = erf(x).astype(np.float32), reference(x).astype(np.float32)
    differing = np.flatnonzero(ours != theirs)
    assert all(_near_float32_midpoint(float(reference(x[i : i + 1])[0])) for i in differing)
    assert differing.size <= 2
