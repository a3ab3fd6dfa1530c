"""``ops/clamp.py``: a Relu in place through numpy's fast loop, the same bits as
``np.maximum(x, 0)``."""

from __future__ import annotations

import numpy as np
import pytest

from onnxcraft.ops.clamp import clamp_at_zero


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("size", [0, 1, 1000, (1 << 18) + 5, 3 << 18])
def test_clamp_at_zero_is_maximum_with_zero_bit_for_bit(dtype: type, size: int) -> None:
    rng = np.random.default_rng(size)
    values = rng.standard_normal(size).astype(dtype)
    specials = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, -np.nan], dtype)
    values[: min(size, 6)] = specials[: min(size, 6)]
    expected = np.maximum(values, dtype(0))
    got = values.copy()
    clamp_at_zero(got)
    assert got.tobytes() == expected.tobytes()
    strided = values.copy()[::2]  # not contiguous: the plain maximum
    clamp_at_zero(strided)
    assert strided.tobytes() == np.maximum(values[::2], dtype(0)).tobytes()
