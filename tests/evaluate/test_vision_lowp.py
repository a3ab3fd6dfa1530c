"""bfloat16 paths of the vision kernels (needs onnxcraft.numerics, the shared codec)."""

from __future__ import annotations

import numpy as np
import pytest

numerics = pytest.importorskip(
    "onnxcraft.numerics", reason="onnxcraft.numerics (bfloat16 codec) is not in the tree yet"
)
dtypes = pytest.importorskip("onnxcraft.dtypes", reason="onnxcraft.dtypes is not in the tree yet")

from onnxcraft.ops.conv.kernels import conv  # noqa: E402
from onnxcraft.ops.normalization.kernels import batch_norm_15, layer_norm  # noqa: E402
from onnxcraft.ops.pool.kernels import max_pool  # noqa: E402

RNG = np.random.default_rng(9)
BF16 = dtypes.ElementType.BFLOAT16


def _bf16(values: np.ndarray) -> np.ndarray:
    return numerics.from_float32(values.astype(np.float32), BF16)


def test_conv_and_max_pool_keep_bfloat16() -> None:
    x = _bf16(RNG.standard_normal((1, 2, 5, 5)))
    w = _bf16(RNG.standard_normal((3, 2, 3, 3)))
    y = conv(x, w, pads=[1, 1, 1, 1])
    assert y.dtype == x.dtype
    reference = conv(numerics.to_float32(x), numerics.to_float32(w), pads=[1, 1, 1, 1])
    np.testing.assert_allclose(numerics.to_float32(y), reference, rtol=1e-2, atol=1e-2)
    values, indices = max_pool(x, kernel_shape=[2, 2])
    assert values.dtype == x.dtype and indices.dtype == np.int64
    expected, _ = max_pool(numerics.to_float32(x), kernel_shape=[2, 2])
    np.testing.assert_array_equal(numerics.to_float32(values), expected)


def test_normalization_statistics_keep_their_own_types() -> None:
    x = _bf16(RNG.standard_normal((2, 3, 4)))
    scale = _bf16(RNG.standard_normal(4))
    y, mean, inv_std = layer_norm(x, scale)
    assert y.dtype == x.dtype
    assert mean.dtype == np.float32 and inv_std.dtype == np.float32
    stats = RNG.standard_normal(3).astype(np.float32)
    var = np.abs(stats) + 0.5
    y, running_mean, running_var = batch_norm_15(
        x, _bf16(stats), _bf16(stats), stats, var, training_mode=1
    )
    assert y.dtype == x.dtype
    assert running_mean.dtype == np.float32 and running_var.dtype == np.float32
