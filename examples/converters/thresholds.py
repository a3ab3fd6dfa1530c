"""Thresholds of float64 models compared with float32 inputs, rounded the right way.

scikit-learn stores split thresholds and bin edges in float64 but compares float32 inputs
with them (its trees cast X to float32; a float32 array searched in float64 edges is compared
exactly). A converter whose graph compares in float32 must store each threshold as a float32;
``np.float32(t)`` rounds to the *nearest* float32, which may sit on the other side of an input
value than ``t`` does. For a float32 ``x`` and any real ``t``:

- ``x <= t`` exactly when ``x <= float32_at_or_below(t)`` (the largest float32 not above t);
- ``x < t`` exactly when ``x < float32_at_or_above(t)`` (the smallest float32 not below t).

So the rounded threshold gives the same answer as the float64 one for every float32 input.
"""

from __future__ import annotations

import numpy as np


def float32_at_or_below(thresholds: np.ndarray) -> np.ndarray:
    """The largest float32 values not greater than ``thresholds`` (for ``x <= t`` tests)."""
    t = np.asarray(thresholds, np.float64)
    rounded = t.astype(np.float32)
    above = rounded.astype(np.float64) > t
    return np.where(above, np.nextafter(rounded, np.float32(-np.inf)), rounded)


def float32_at_or_above(thresholds: np.ndarray) -> np.ndarray:
    """The smallest float32 values not less than ``thresholds`` (for ``x < t`` tests)."""
    t = np.asarray(thresholds, np.float64)
    rounded = t.astype(np.float32)
    below = rounded.astype(np.float64) < t
    return np.where(below, np.nextafter(rounded, np.float32(np.inf)), rounded)
