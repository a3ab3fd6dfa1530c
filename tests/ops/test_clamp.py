"""``ops/clamp.py`` on large arrays: the shared zeros grow with the largest array asked
for, in place and not, the same bits as ``np.maximum(x, 0)``
(tests/evaluate/test_relu_clamp.py draws the layouts and element types)."""

from __future__ import annotations

import numpy as np
import pytest

from onnxcraft.ops.clamp import at_least_zero


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("size", [0, 1, 1000, (1 << 18) + 5, 3 << 18])
def test_at_least_zero_is_maximum_with_zero_bit_for_bit(dtype: type, size: int) -> None:
    rng = np.random.default_rng(size)
    values = rng.standard_normal(size).astype(dtype)
    specials = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, -np.nan], dtype)
    values[: min(size, 6)] = specials[: min(size, 6)]
    expected = np.maximum(values, dtype(0))
    assert at_least_zero(values).tobytes() == expected.tobytes()
    got = values.copy()
    at_least_zero(got, out=got)
    assert got.tobytes() == expected.tobytes()
    strided = values.copy()[::2]  # not contiguous
    at_least_zero(strided, out=strided)
    assert strided.tobytes() == np.maximum(values[::2], dtype(0)).tobytes()
