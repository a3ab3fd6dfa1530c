"""Pooling and ROI kernels against onnxruntime and loop-by-loop numpy references."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from onnxcraft.errors import EvaluationError
from onnxcraft.ops.pool.kernels import (
    average_pool,
    global_lp_pool,
    lp_pool,
    max_pool,
    max_pool_1,
    max_unpool,
)
from onnxcraft.ops.roi.kernels import max_roi_pool, roi_align_16
from tests.evaluate._vision_oracle import run_node

RNG = np.random.default_rng(11)

MAX_CASES = [
    ((1, 2, 7, 8), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    (
        (2, 3, 9, 7),
        {"kernel_shape": [3, 2], "dilations": [2, 2], "ceil_mode": 1, "strides": [2, 3]},
    ),
    ((1, 2, 6, 5), {"kernel_shape": [2, 2], "storage_order": 1, "strides": [1, 2]}),
    ((1, 1, 10), {"kernel_shape": [4], "strides": [3], "pads": [2, 1], "ceil_mode": 1}),
    ((1, 2, 5, 4, 6), {"kernel_shape": [2, 3, 2], "strides": [2, 1, 2]}),
    ((1, 2, 7, 6), {"kernel_shape": [3, 2], "auto_pad": "SAME_UPPER", "strides": [2, 2]}),
]


@pytest.mark.parametrize(("shape", "attrs"), MAX_CASES)
def test_max_pool_values_and_indices_match_onnxruntime(shape, attrs) -> None:
    x = RNG.standard_normal(shape).astype(np.float32)
    expected_values, expected_indices = run_node("MaxPool", [x], opset=12, outputs=2, **attrs)
    values, indices = max_pool(x, **attrs)
    np.testing.assert_array_equal(values, expected_values)
    np.testing.assert_array_equal(indices, expected_indices)
    assert indices.dtype == np.int64


def test_max_pool_int8_pads_with_the_type_minimum() -> None:
    x = np.full((1, 1, 3, 3), -128, np.int8)
    x[0, 0, 1, 1] = -100
    values, _ = max_pool(x, kernel_shape=[2, 2], pads=[1, 1, 1, 1])
    assert values.dtype == np.int8
    assert values.min() == -128 and values.max() == -100


AVG_CASES = [
    ((1, 2, 7, 8), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    (
        (1, 2, 7, 8),
        {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "count_include_pad": 1},
    ),
    (
        (1, 2, 8, 7),
        {
            "kernel_shape": [3, 2],
            "strides": [2, 2],
            "pads": [1, 0, 0, 1],
            "ceil_mode": 1,
            "count_include_pad": 1,
        },
    ),
    ((1, 1, 9, 9), {"kernel_shape": [3, 3], "dilations": [2, 2], "pads": [2, 2, 2, 2]}),
    ((1, 2, 6, 7), {"kernel_shape": [2, 3], "auto_pad": "SAME_LOWER"}),
]


@pytest.mark.parametrize(("shape", "attrs"), AVG_CASES)
def test_average_pool_matches_onnxruntime(shape, attrs) -> None:
    x = RNG.standard_normal(shape).astype(np.float32)
    (expected,) = run_node("AveragePool", [x], opset=19, **attrs)
    np.testing.assert_allclose(average_pool(x, **attrs), expected, rtol=1e-5, atol=1e-6)


def test_lp_pool_against_windowed_norms() -> None:
    x = RNG.standard_normal((1, 2, 5, 6)).astype(np.float32)
    got = lp_pool(x, kernel_shape=[2, 3], strides=[1, 3], p=3)
    expected = np.zeros((1, 2, 4, 2), np.float32)
    for i in range(4):
        for j in range(2):
            window = x[:, :, i : i + 2, 3 * j : 3 * j + 3]
            expected[:, :, i, j] = (np.abs(window) ** 3).sum(axis=(2, 3)) ** (1 / 3)
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    np.testing.assert_allclose(
        global_lp_pool(x, p=1), np.abs(x).sum(axis=(2, 3), keepdims=True), rtol=1e-5
    )


def test_max_pool_1_has_no_indices_and_errors_name_the_op() -> None:
    x = RNG.standard_normal((1, 1, 4, 4)).astype(np.float32)
    assert max_pool_1(x, kernel_shape=[2, 2]).shape == (1, 1, 3, 3)
    with pytest.raises(EvaluationError, match="MaxPool: attribute kernel_shape is required"):
        max_pool_1(x)
    with pytest.raises(EvaluationError, match=r"AveragePool: .*rank >= 3"):
        average_pool(np.zeros((4, 4), np.float32), kernel_shape=[2])


def test_max_unpool_inverts_max_pool_positions() -> None:
    x = RNG.standard_normal((2, 3, 6, 4)).astype(np.float32)
    values, indices = max_pool(x, kernel_shape=[2, 2], strides=[2, 2])
    restored = max_unpool(values, indices, kernel_shape=[2, 2], strides=[2, 2])
    mask = restored != 0
    np.testing.assert_array_equal(restored[mask], x[mask])
    assert mask.sum() == values.size


def _naive_max_roi_pool(x, rois, pooled, scale):
    ph, pw = pooled
    out = np.zeros((len(rois), x.shape[1], ph, pw), x.dtype)
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        x1, y1, x2, y2 = (int(np.floor(v * scale + 0.5)) for v in (x1, y1, x2, y2))
        h, w = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for i in range(ph):
            for j in range(pw):
                hs = min(max(int(np.floor(i * h / ph)) + y1, 0), x.shape[2])
                he = min(max(int(np.ceil((i + 1) * h / ph)) + y1, 0), x.shape[2])
                ws = min(max(int(np.floor(j * w / pw)) + x1, 0), x.shape[3])
                we = min(max(int(np.ceil((j + 1) * w / pw)) + x1, 0), x.shape[3])
                if he > hs and we > ws:
                    out[r, :, i, j] = x[int(b), :, hs:he, ws:we].max(axis=(1, 2))
    return out


def test_max_roi_pool_against_loops() -> None:
    x = RNG.standard_normal((2, 3, 10, 12)).astype(np.float32)
    rois = np.array([[0, 1, 1, 8, 6], [1, 0, 2, 11, 9], [0, 4.6, 3.2, 6.1, 7.9]], np.float32)
    got = max_roi_pool(x, rois, pooled_shape=[3, 2], spatial_scale=1.0)
    np.testing.assert_array_equal(got, _naive_max_roi_pool(x, rois, (3, 2), 1.0))


@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("ctm", ["half_pixel", "output_half_pixel"])
def test_roi_align_matches_onnxruntime(mode: str, ctm: str) -> None:
    x = RNG.standard_normal((2, 3, 9, 11)).astype(np.float32)
    rois = np.array([[0.5, 1.0, 7.5, 6.0], [2.0, 0.0, 10.0, 8.5], [-1, -1, 4, 3]], np.float32)
    batch = np.array([0, 1, 1], np.int64)
    attrs = {
        "mode": mode,
        "coordinate_transformation_mode": ctm,
        "output_height": 3,
        "output_width": 4,
        "sampling_ratio": 2,
        "spatial_scale": 0.9,
    }
    (expected,) = run_node("RoiAlign", [x, rois, batch], opset=16, **attrs)
    np.testing.assert_allclose(
        roi_align_16(x, rois, batch, **attrs), expected, rtol=1e-4, atol=1e-5
    )


@settings(max_examples=25, deadline=None)
@given(
    width=st.integers(2, 13),
    height=st.integers(1, 6),
    batch=st.integers(1, 3),
    kernel=st.integers(1, 3),
    pad=st.integers(0, 1),
    ceil_mode=st.integers(0, 1),
    storage_order=st.integers(0, 1),
    dtype=st.sampled_from([np.float32, np.float64, np.int8, np.uint8]),
    seed=st.integers(0, 2**16),
)
def test_max_pool_at_stride_two_along_the_last_axis_matches_onnxruntime(
    width: int,
    height: int,
    batch: int,
    kernel: int,
    pad: int,
    ceil_mode: int,
    storage_order: int,
    dtype: Any,
    seed: int,
) -> None:
    """Every other position kept by a cast of element pairs (even widths) or a strided copy
    (odd widths): values and the Indices output, in either storage order."""
    # no window wider than the padded row, no pad as wide as the window
    assume(kernel <= width + 2 * pad and pad < kernel)
    # Distinct values along each row (the windows' only axis): which of two equal maxima
    # Indices names is left open by the standard. A row may hold 0, uint8's lowest value,
    # which the padding holds too.
    rows = np.tile(np.arange(-100, 100), (batch * 2 * height, 1))
    distinct = np.random.default_rng(seed).permuted(rows, axis=1)[:, :width]
    x = distinct.reshape(batch, 2, height, width).astype(dtype)
    attrs = {
        "kernel_shape": [1, kernel],
        "strides": [1, 2],
        "pads": [0, pad, 0, pad],
        "ceil_mode": ceil_mode,
        "storage_order": storage_order,
    }
    expected_values, expected_indices = run_node("MaxPool", [x], opset=12, outputs=2, **attrs)
    values, indices = max_pool(x, **attrs)
    assert values.dtype == x.dtype and values.tobytes() == expected_values.tobytes()
    np.testing.assert_array_equal(indices, expected_indices)


@pytest.mark.parametrize(
    ("dtype", "lowest"), [(np.uint8, 0), (np.int8, -128), (np.float32, -np.inf)]
)
def test_max_pool_indices_never_point_at_padding(dtype: Any, lowest: Any) -> None:
    """A window whose maximum is the type's lowest value (what the padding holds) names a
    sample of the input; a NaN maximum names the window's first NaN."""
    x = np.full((1, 1, 3, 4), lowest, dtype)
    attrs = {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "strides": [2, 2]}
    values, indices = max_pool(x, **attrs)
    assert (values == lowest).all()
    # every window starts in padding: its first sample on the input is its top-left corner
    np.testing.assert_array_equal(indices, [[[[0, 1], [4, 5]]]])
    if dtype == np.float32:
        x[0, 0, 1, 2] = np.nan
        values, indices = max_pool(x, **attrs)
        assert np.isnan(values[0, 0, 0, 1]) and indices[0, 0, 0, 1] == 6
