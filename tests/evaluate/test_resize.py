"""Resize/Upsample, GridSample/AffineGrid, CenterCropPad and NonMaxSuppression kernels."""

from __future__ import annotations

import numpy as np
import pytest

from onnxcraft.errors import EvaluationError
from onnxcraft.ops.center_crop_pad.kernels import center_crop_pad
from onnxcraft.ops.grid.kernels import affine_grid, grid_sample_16, grid_sample_20
from onnxcraft.ops.nms.kernels import non_max_suppression
from onnxcraft.ops.resize.kernels import resize, resize_10, upsample_7, upsample_9
from tests.evaluate._vision_oracle import run_node

RNG = np.random.default_rng(5)

RESIZE_CASES = [
    {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"},
    {
        "mode": "nearest",
        "coordinate_transformation_mode": "half_pixel",
        "nearest_mode": "round_prefer_ceil",
    },
    {"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"},
    {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
    {
        "mode": "cubic",
        "coordinate_transformation_mode": "half_pixel",
        "cubic_coeff_a": -0.5,
        "exclude_outside": 1,
    },
    {"mode": "linear", "coordinate_transformation_mode": "tf_half_pixel_for_nn"},
]


@pytest.mark.parametrize("attrs", RESIZE_CASES)
@pytest.mark.parametrize("scales", [[1, 1, 1.5, 0.5], [1, 1, 0.5, 2.25]])
def test_resize_scales_match_onnxruntime(attrs, scales) -> None:
    # Scales giving whole output lengths: for fractional ones onnxruntime uses the rounded
    # length in align_corners, where the standard's reference outputs use scale * length.
    x = RNG.standard_normal((1, 2, 6, 8)).astype(np.float32)
    s = np.array(scales, np.float32)
    (expected,) = run_node("Resize", [x, None, s], opset=13, **attrs)
    np.testing.assert_allclose(resize(x, None, s, **attrs), expected, rtol=1e-4, atol=1e-5)


def test_resize_sizes_with_axes_and_antialias_match_onnxruntime() -> None:
    x = RNG.standard_normal((2, 3, 12, 10)).astype(np.float32)
    sizes = np.array([5, 4], np.int64)
    attrs = {"mode": "linear", "antialias": 1, "axes": [2, 3]}
    (expected,) = run_node("Resize", [x, None, None, sizes], opset=18, **attrs)
    np.testing.assert_allclose(
        resize(x, None, None, sizes, **attrs), expected, rtol=1e-4, atol=1e-5
    )


def test_resize_tf_crop_and_resize_extrapolates() -> None:
    x = RNG.standard_normal((1, 1, 5, 5)).astype(np.float32)
    roi = np.array([0, 0, -0.2, 0.3, 1, 1, 0.9, 1.4], np.float32)
    sizes = np.array([1, 1, 4, 4], np.int64)
    attrs = {
        "mode": "linear",
        "coordinate_transformation_mode": "tf_crop_and_resize",
        "extrapolation_value": 7.0,
    }
    (expected,) = run_node("Resize", [x, roi, None, sizes], opset=13, **attrs)
    got = resize(x, roi, None, sizes, **attrs)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    assert (got == 7.0).any()


def test_resize_uint8_rounds_and_errors() -> None:
    x = RNG.integers(0, 256, (1, 1, 4, 4), dtype=np.uint8)
    s = np.array([1, 1, 2, 2], np.float32)
    got = resize(x, None, s, mode="linear")
    assert got.dtype == np.uint8 and got.shape == (1, 1, 8, 8)
    with pytest.raises(EvaluationError, match="Resize: exactly one of 'scales' and 'sizes'"):
        resize(x, None, None, None)
    with pytest.raises(EvaluationError, match="Resize: mode must be"):
        resize(x, None, s, mode="area")


def test_legacy_resize_and_upsample_match_onnxruntime() -> None:
    x = RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)
    s = np.array([1, 1, 2, 1.5], np.float32)
    (expected,) = run_node("Upsample", [x, s], opset=9, mode="nearest")
    np.testing.assert_array_equal(upsample_9(x, s, mode="nearest"), expected)
    (expected,) = run_node("Upsample", [x], opset=7, mode="linear", scales=[1.0, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(
        upsample_7(x, mode="linear", scales=[1.0, 1.0, 2.0, 3.0]), expected, rtol=1e-5
    )
    down = np.array([1, 1, 0.6, 0.5], np.float32)
    for mode in ("nearest", "linear"):
        (expected,) = run_node("Resize", [x, down], opset=10, mode=mode)
        np.testing.assert_allclose(resize_10(x, down, mode=mode), expected, rtol=1e-5)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [0, 1])
def test_grid_sample_16_matches_onnxruntime(mode, padding_mode, align_corners) -> None:
    x = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
    grid = RNG.uniform(-1.4, 1.4, (2, 4, 3, 2)).astype(np.float32)
    attrs = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    (expected,) = run_node("GridSample", [x, grid], opset=16, **attrs)
    np.testing.assert_allclose(grid_sample_16(x, grid, **attrs), expected, rtol=1e-4, atol=1e-5)


def test_grid_sample_3d_identity_grid_reproduces_input() -> None:
    x = RNG.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
    theta = np.array([[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]], np.float32)
    grid = affine_grid(theta, np.array(x.shape, np.int64), align_corners=1)
    assert grid.shape == (1, 3, 4, 5, 3)
    np.testing.assert_allclose(grid_sample_20(x, grid, align_corners=1), x, rtol=1e-5, atol=1e-6)


def test_affine_grid_2d_matches_onnxruntime() -> None:
    theta = RNG.standard_normal((2, 2, 3)).astype(np.float32)
    size = np.array([2, 3, 4, 5], np.int64)
    for align in (0, 1):
        (expected,) = run_node("AffineGrid", [theta, size], opset=20, align_corners=align)
        np.testing.assert_allclose(
            affine_grid(theta, size, align_corners=align), expected, rtol=1e-5, atol=1e-6
        )


def test_center_crop_pad_crops_and_pads_around_the_centre() -> None:
    x = np.arange(5 * 4).reshape(5, 4).astype(np.float32)
    got = center_crop_pad(x, np.array([3, 7], np.int64))
    assert got.shape == (3, 7)
    np.testing.assert_array_equal(got[:, 1:5], x[1:4])
    assert not got[:, [0, 5, 6]].any()
    one_axis = center_crop_pad(x, np.array([2], np.int64), axes=[-1])
    np.testing.assert_array_equal(one_axis, x[:, 1:3])


def test_nms_matches_onnxruntime_on_random_boxes() -> None:
    corners = RNG.uniform(0, 10, (2, 30, 2, 2)).astype(np.float32)
    boxes = np.concatenate([corners[:, :, 0], corners[:, :, 0] + corners[:, :, 1]], axis=-1)
    scores = RNG.random((2, 3, 30)).astype(np.float32)
    args = [
        boxes,
        scores,
        np.array([4], np.int64),
        np.array([0.3], np.float32),
        np.array([0.2], np.float32),
    ]
    (expected,) = run_node("NonMaxSuppression", args, opset=11)
    np.testing.assert_array_equal(non_max_suppression(*args), expected)
    assert non_max_suppression(boxes, scores).shape == (0, 3)


def test_nearest_paths_work_for_every_element_type() -> None:
    words = np.array([["a", "b"], ["c", "d"]], dtype=object).reshape(1, 1, 2, 2)
    up = resize(
        words,
        None,
        np.array([1, 1, 2, 2], np.float32),
        mode="nearest",
        coordinate_transformation_mode="asymmetric",
        nearest_mode="floor",
    )
    np.testing.assert_array_equal(up[0, 0], np.repeat(np.repeat(words[0, 0], 2, 0), 2, 1))
    flags = np.array([[True, False]]).reshape(1, 1, 1, 2)
    assert resize(flags, None, np.array([1, 1, 1, 2], np.float32)).dtype == np.bool_
    with pytest.raises(EvaluationError, match="Resize: mode 'linear' needs a numeric input"):
        resize(flags, None, np.array([1, 1, 1, 2], np.float32), mode="linear")
    ints = np.arange(12, dtype=np.int32).reshape(1, 1, 3, 4)
    grid = np.array([[[[-1.0, -1.0], [1.0, 1.0], [3.0, 0.0]]]], np.float32)
    sampled = grid_sample_20(ints, grid, mode="nearest", align_corners=1)
    np.testing.assert_array_equal(sampled, np.array([[[[0, 11, 0]]]], np.int32))
    padded = center_crop_pad(np.array(["x", "y"], dtype=object), np.array([4], np.int64))
    assert padded.tolist() == ["", "x", "y", ""]


def test_linear_resize_of_complex_values_keeps_both_parts() -> None:
    x = (RNG.standard_normal((1, 1, 3, 3)) + 1j * RNG.standard_normal((1, 1, 3, 3))).astype(
        np.complex64
    )
    s = np.array([1, 1, 2, 2], np.float32)
    got = resize(x, None, s, mode="linear")
    real = resize(x.real.copy(), None, s, mode="linear")
    imag = resize(x.imag.copy(), None, s, mode="linear")
    np.testing.assert_allclose(got, real + 1j * imag, rtol=1e-5, atol=1e-6)
