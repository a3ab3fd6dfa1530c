"""Convolution kernels against onnxruntime and independent numpy formulations."""

from __future__ import annotations

import numpy as np
import pytest

from onnxcraft.errors import EvaluationError
from onnxcraft.ops.causal_conv.kernels import causal_conv_with_state
from onnxcraft.ops.conv.kernels import conv, conv_integer, qlinear_conv
from onnxcraft.ops.conv_transpose.kernels import col2im, conv_transpose
from onnxcraft.ops.deform_conv.kernels import deform_conv
from tests.evaluate._vision_oracle import run_node

RNG = np.random.default_rng(7)

CONV_CASES = [
    # (input shape, weight shape, attributes)
    ((2, 4, 9), (6, 2, 3), {"group": 2, "strides": [2], "pads": [1, 2]}),
    ((1, 3, 10, 11), (5, 3, 3, 2), {"dilations": [2, 1], "pads": [2, 0, 1, 1]}),
    ((1, 3, 10, 11), (5, 3, 3, 2), {"auto_pad": "SAME_LOWER"}),
    ((1, 3, 10, 11), (5, 3, 3, 3), {"strides": [2, 3], "auto_pad": "SAME_UPPER"}),
    ((1, 6, 7, 7), (6, 1, 3, 3), {"group": 6, "pads": [1, 1, 1, 1]}),
    ((2, 2, 5, 6, 4), (3, 2, 2, 3, 2), {"strides": [1, 2, 1], "pads": [0, 1, 1, 1, 0, 0]}),
    ((1, 2, 6, 6), (4, 2, 3, 3), {"auto_pad": "VALID", "strides": [2, 2]}),
]


@pytest.mark.parametrize(("x_shape", "w_shape", "attrs"), CONV_CASES)
def test_conv_matches_onnxruntime(x_shape, w_shape, attrs) -> None:
    x = RNG.standard_normal(x_shape).astype(np.float32)
    w = RNG.standard_normal(w_shape).astype(np.float32)
    b = RNG.standard_normal(w_shape[0]).astype(np.float32)
    (expected,) = run_node("Conv", [x, w, b], opset=22, **attrs)
    np.testing.assert_allclose(conv(x, w, b, **attrs), expected, rtol=1e-4, atol=1e-5)


def test_conv_float16_and_empty_batch() -> None:
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float16)
    w = RNG.standard_normal((3, 2, 3, 3)).astype(np.float16)
    y = conv(x, w)
    assert y.dtype == np.float16 and y.shape == (1, 3, 3, 3)
    reference = conv(x.astype(np.float32), w.astype(np.float32))
    np.testing.assert_allclose(y.astype(np.float32), reference, rtol=2e-3, atol=2e-3)
    empty = conv(np.zeros((0, 2, 5, 5), np.float32), w.astype(np.float32))
    assert empty.shape == (0, 3, 3, 3)


def test_conv_rejects_channel_mismatch() -> None:
    with pytest.raises(EvaluationError, match=r"Conv: .*channels"):
        conv(np.zeros((1, 3, 4, 4), np.float32), np.zeros((2, 2, 3, 3), np.float32))
    with pytest.raises(EvaluationError, match=r"Conv: pads must have 4 entries"):
        conv(np.zeros((1, 2, 4, 4), np.float32), np.zeros((2, 2, 3, 3), np.float32), pads=[1])


TRANSPOSE_CASES = [
    ((1, 2, 4), (2, 3, 3), {"strides": [2], "output_padding": [1]}),
    ((2, 4, 3, 3), (4, 2, 3, 3), {"group": 2, "strides": [2, 2], "pads": [1, 0, 0, 1]}),
    ((1, 2, 3, 4), (2, 3, 2, 3), {"dilations": [2, 1], "strides": [1, 2]}),
    ((1, 1, 3, 3), (1, 2, 3, 3), {"strides": [3, 2], "output_shape": [10, 8]}),
    ((1, 1, 3, 3), (1, 2, 3, 3), {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 1, 3, 3), (1, 2, 3, 3), {"strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    ((1, 2, 2, 3, 2), (2, 1, 2, 2, 2), {"strides": [2, 1, 2]}),
]


@pytest.mark.parametrize(("x_shape", "w_shape", "attrs"), TRANSPOSE_CASES)
def test_conv_transpose_matches_onnxruntime(x_shape, w_shape, attrs) -> None:
    x = RNG.standard_normal(x_shape).astype(np.float32)
    w = RNG.standard_normal(w_shape).astype(np.float32)
    b = RNG.standard_normal(w_shape[1] * attrs.get("group", 1)).astype(np.float32)
    (expected,) = run_node("ConvTranspose", [x, w, b], opset=22, **attrs)
    np.testing.assert_allclose(conv_transpose(x, w, b, **attrs), expected, rtol=1e-4, atol=1e-5)


def _naive_conv_integer(x, w, x_zp, w_zp):
    """Direct 2-D valid convolution of shifted integers, loop by loop."""
    xs = x.astype(np.int64) - x_zp
    ws = w.astype(np.int64) - np.asarray(w_zp).reshape(-1, 1, 1, 1)
    n, _, h, wd = x.shape
    m, _, kh, kw = w.shape
    out = np.zeros((n, m, h - kh + 1, wd - kw + 1), np.int64)
    for i in range(h - kh + 1):
        for j in range(wd - kw + 1):
            patch = xs[:, :, i : i + kh, j : j + kw]
            out[:, :, i, j] = np.einsum("nckl,mckl->nm", patch, ws)
    return out


def test_conv_integer_per_channel_zero_points() -> None:
    x = RNG.integers(0, 256, (2, 3, 6, 5), dtype=np.uint8)
    w = RNG.integers(-128, 128, (4, 3, 3, 2), dtype=np.int8)
    w_zp = np.array([0, 3, -2, 5], np.int8)
    y = conv_integer(x, w, np.array(7, np.uint8), w_zp)
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, _naive_conv_integer(x, w, 7, w_zp))


@pytest.mark.parametrize("per_channel", [False, True])
def test_qlinear_conv_requantizes_exact_accumulators(per_channel: bool) -> None:
    # onnxruntime's u8s8 path can saturate 16-bit pair sums on some CPUs, so the oracle is
    # the spec's formula on a loop-by-loop integer convolution.
    x = RNG.integers(0, 256, (1, 2, 7, 7), dtype=np.uint8)
    w = RNG.integers(-100, 100, (3, 2, 3, 3), dtype=np.int8)
    w_scale = np.array([0.01, 0.02, 0.005] if per_channel else 0.01, np.float32)
    bias = RNG.integers(-500, 500, 3).astype(np.int32)
    got = qlinear_conv(
        x,
        np.array(0.02, np.float32),
        np.array(120, np.uint8),
        w,
        w_scale,
        np.zeros(3, np.int8),
        np.array(0.3, np.float32),
        np.array(100, np.uint8),
        bias,
    )
    acc = _naive_conv_integer(x, w, 120, np.zeros(3)) + bias.reshape(1, 3, 1, 1)
    scale = (
        np.float64(np.float32(0.02))
        * w_scale.astype(np.float64).reshape(-1, 1, 1)
        / (np.float64(np.float32(0.3)))
    )
    expected = np.clip(np.rint(acc * scale) + 100, 0, 255).astype(np.uint8)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, expected)


def test_col2im_inverts_counted_im2col() -> None:
    # Folding the unfolded image multiplies each pixel by how many blocks cover it.
    image = RNG.standard_normal((1, 2, 5, 6)).astype(np.float32)
    block = (2, 3)
    blocks = [
        image[:, :, i : i + 2, j : j + 3].reshape(1, 2 * 6) for i in range(4) for j in range(4)
    ]
    cols = np.stack(blocks, axis=-1)
    folded = col2im(cols, np.array([5, 6]), np.array(block))
    cover = np.zeros((5, 6))
    for i in range(4):
        for j in range(4):
            cover[i : i + 2, j : j + 3] += 1
    np.testing.assert_allclose(folded, image * cover, rtol=1e-6)


def test_deform_conv_with_zero_offsets_is_conv() -> None:
    x = RNG.standard_normal((2, 4, 6, 5)).astype(np.float32)
    w = RNG.standard_normal((6, 2, 3, 3)).astype(np.float32)
    offset = np.zeros((2, 2 * 9 * 2, 6, 5), np.float32)
    attrs = {"group": 2, "offset_group": 2, "pads": [1, 1, 1, 1]}
    got = deform_conv(x, w, offset, **attrs)
    np.testing.assert_allclose(got, conv(x, w, group=2, pads=[1, 1, 1, 1]), rtol=1e-5, atol=1e-5)


def test_deform_conv_integer_offsets_shift_the_sample() -> None:
    # A 1x1 kernel with offset (+1, -1) reads the pixel one row down and one column left.
    x = RNG.standard_normal((1, 1, 4, 4)).astype(np.float32)
    w = np.ones((1, 1, 1, 1), np.float32)
    offset = np.zeros((1, 2, 4, 4), np.float32)
    offset[:, 0] = 1.0
    offset[:, 1] = -1.0
    got = deform_conv(x, w, offset)[0, 0]
    expected = np.zeros((4, 4), np.float32)
    expected[:3, 1:] = x[0, 0, 1:, :3]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_causal_conv_state_carries_between_calls() -> None:
    x = RNG.standard_normal((2, 3, 7)).astype(np.float32)
    w = RNG.standard_normal((3, 1, 4)).astype(np.float32)
    whole, _ = causal_conv_with_state(x, w, activation="silu")
    first, state = causal_conv_with_state(x[:, :, :5], w, activation="silu")
    second, _ = causal_conv_with_state(x[:, :, 5:], w, None, state, activation="silu")
    np.testing.assert_allclose(np.concatenate([first, second], axis=2), whole, rtol=1e-6)
    # The first output only sees the first input sample (zero history).
    pre = x[:, :, 0] * w[:, 0, 3]
    np.testing.assert_allclose(whole[:, :, 0], pre / (1 + np.exp(-pre)), rtol=1e-5)


def test_col2im_rejects_non_numeric_blocks() -> None:
    with pytest.raises(EvaluationError, match=r"Col2Im: .*must be numeric"):
        col2im(np.zeros((1, 4, 1), dtype=object), np.array([2, 2]), np.array([2, 2]))
