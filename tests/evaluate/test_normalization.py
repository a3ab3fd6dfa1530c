"""Normalization, loss and dropout kernels: version differences, edge cases, oracles."""

from __future__ import annotations

import numpy as np
import pytest

from onnxcraft.errors import EvaluationError
from onnxcraft.ops.dropout.kernels import dropout_1, dropout_7, dropout_10, dropout_12
from onnxcraft.ops.kernel_api import KernelContext
from onnxcraft.ops.loss.kernels import negative_log_likelihood_loss, softmax_cross_entropy_loss
from onnxcraft.ops.normalization.kernels import (
    batch_norm_7,
    batch_norm_9,
    batch_norm_15,
    group_norm_18,
    group_norm_21,
    instance_norm,
    layer_norm,
    lp_normalization,
    lrn,
    mean_variance_normalization,
    rms_norm,
)
from tests.evaluate._vision_oracle import run_node

RNG = np.random.default_rng(3)


def _ctx(outputs: int, requested: tuple[bool, ...] | None = None) -> KernelContext:
    flags = requested if requested is not None else (True,) * outputs
    return KernelContext("", "BatchNormalization", 7, 7, outputs, flags)


def test_batch_norm_9_training_only_when_statistics_are_requested() -> None:
    x = RNG.standard_normal((4, 2, 3)).astype(np.float32)
    ones, zeros = np.ones(2, np.float32), np.zeros(2, np.float32)
    mean = np.array([5.0, -5.0], np.float32)
    y = batch_norm_9(_ctx(5, (True, False, False, False, False)), x, ones, zeros, mean, ones)
    np.testing.assert_allclose(y[0], (x - mean[:, None]) / np.sqrt(1 + 1e-5), rtol=1e-5)
    y, running_mean, running_var, saved_mean, saved_var = batch_norm_9(
        _ctx(5), x, ones, zeros, mean, ones, momentum=0.5
    )
    np.testing.assert_allclose(saved_mean, x.mean(axis=(0, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(running_mean, 0.5 * mean + 0.5 * saved_mean, rtol=1e-5)
    np.testing.assert_allclose(saved_var, x.var(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_allclose(running_var, 0.5 + 0.5 * saved_var, rtol=1e-5)


def test_batch_norm_7_per_activation_parameters() -> None:
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    scale, bias, mean = (RNG.standard_normal((3, 4)).astype(np.float32) for _ in range(3))
    var = RNG.random((3, 4)).astype(np.float32) + 0.5
    y = batch_norm_7(_ctx(1), x, scale, bias, mean, var, spatial=0, epsilon=1e-3)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3) * scale + bias, rtol=1e-5)


def test_batch_norm_15_training_matches_onnxruntime_statistics() -> None:
    x = RNG.standard_normal((4, 3, 5)).astype(np.float32)
    scale, bias, mean = (RNG.standard_normal(3).astype(np.float32) for _ in range(3))
    var = RNG.random(3).astype(np.float32) + 0.5
    y, running_mean, running_var = batch_norm_15(
        x, scale, bias, mean, var, training_mode=1, momentum=0.8
    )
    batch_mean = x.mean(axis=(0, 2))
    batch_var = x.var(axis=(0, 2))
    np.testing.assert_allclose(running_mean, mean * 0.8 + batch_mean * 0.2, rtol=1e-5)
    np.testing.assert_allclose(running_var, var * 0.8 + batch_var * 0.2, rtol=1e-5)
    expected = (x - batch_mean[:, None]) / np.sqrt(batch_var[:, None] + 1e-5)
    np.testing.assert_allclose(y, expected * scale[:, None] + bias[:, None], rtol=1e-4, atol=1e-5)


def test_group_norm_18_scales_per_group_and_21_per_channel() -> None:
    x = RNG.standard_normal((2, 6, 3, 2)).astype(np.float32)
    per_group = np.array([2.0, -1.0], np.float32)
    per_channel = np.repeat(per_group, 3)
    shift = np.zeros(6, np.float32)
    a = group_norm_18(x, per_group, np.zeros(2, np.float32), num_groups=2)
    b = group_norm_21(x, per_channel, shift, num_groups=2)
    np.testing.assert_allclose(a, b, rtol=1e-6)
    (expected,) = run_node("GroupNormalization", [x, per_channel, shift], opset=21, num_groups=2)
    np.testing.assert_allclose(b, expected, rtol=1e-4, atol=1e-5)
    with pytest.raises(EvaluationError, match="GroupNormalization: scale and bias must have"):
        group_norm_21(x, per_group, np.zeros(2, np.float32), num_groups=2)


def test_layer_and_rms_norm_negative_axis_and_outputs() -> None:
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    scale = RNG.standard_normal((3, 4)).astype(np.float32)
    y, mean, inv_std = layer_norm(x, scale, axis=-2)
    assert mean.shape == (2, 1, 1) and inv_std.shape == (2, 1, 1)
    flat = x.reshape(2, -1)
    expected = (flat - flat.mean(1, keepdims=True)) / np.sqrt(flat.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, expected.reshape(x.shape) * scale, rtol=1e-4, atol=1e-5)
    rms = rms_norm(x, scale[0], axis=-1)
    np.testing.assert_allclose(
        rms, x / np.sqrt((x**2).mean(-1, keepdims=True) + 1e-5) * scale[0], rtol=1e-5
    )
    with pytest.raises(EvaluationError, match="LayerNormalization: axis=3 is out of range"):
        layer_norm(x, scale, axis=3)


def test_instance_lrn_lp_mvn_match_onnxruntime() -> None:
    x = RNG.standard_normal((2, 5, 4, 3)).astype(np.float32)
    s, b = RNG.standard_normal(5).astype(np.float32), RNG.standard_normal(5).astype(np.float32)
    (e,) = run_node("InstanceNormalization", [x, s, b], opset=6, epsilon=1e-4)
    np.testing.assert_allclose(instance_norm(x, s, b, epsilon=1e-4), e, rtol=1e-4, atol=1e-5)
    (e,) = run_node("LRN", [x], opset=13, size=5, alpha=0.3, beta=0.6, bias=1.5)
    np.testing.assert_allclose(lrn(x, size=5, alpha=0.3, beta=0.6, bias=1.5), e, rtol=1e-5)
    (e,) = run_node("LpNormalization", [x], opset=1, axis=1, p=1)
    np.testing.assert_allclose(lp_normalization(x, axis=1, p=1), e, rtol=1e-5)
    (e,) = run_node("MeanVarianceNormalization", [x], opset=13, axes=[0, 2])
    np.testing.assert_allclose(mean_variance_normalization(x, axes=[0, 2]), e, rtol=1e-4, atol=1e-5)


def test_lrn_even_size_window_against_loops() -> None:
    # onnxruntime only takes odd sizes; an even window has one more channel after c.
    x = RNG.standard_normal((1, 6, 2)).astype(np.float32)
    expected = np.empty_like(x)
    for c in range(6):
        lo, hi = max(0, c - 1), min(6, c + 3)
        square_sum = (x[:, lo:hi] ** 2).sum(axis=1)
        expected[:, c] = x[:, c] / (2.0 + 0.1 / 4 * square_sum) ** 0.5
    np.testing.assert_allclose(lrn(x, size=4, alpha=0.1, beta=0.5, bias=2.0), expected, rtol=1e-5)


def test_lp_normalization_keeps_zero_vectors_zero() -> None:
    x = np.zeros((2, 3), np.float32)
    np.testing.assert_array_equal(lp_normalization(x), x)


def test_nll_ignore_index_and_weights_against_formula() -> None:
    log_prob = RNG.standard_normal((4, 3, 2)).astype(np.float32)
    target = np.array([[0, 2], [1, -1], [-1, 2], [1, 0]], np.int64)
    weight = np.array([0.5, 2.0, 1.0], np.float32)
    got = negative_log_likelihood_loss(log_prob, target, weight, ignore_index=-1)
    kept = target != -1
    safe = np.where(kept, target, 0)
    picked = np.take_along_axis(log_prob, safe[:, None], axis=1)[:, 0]
    w = np.where(kept, weight[safe], 0)
    np.testing.assert_allclose(got, -(picked * w).sum() / w.sum(), rtol=1e-6)
    with pytest.raises(EvaluationError, match="target values must lie in"):
        negative_log_likelihood_loss(log_prob, target)  # -1 is not ignored here


def test_softmax_cross_entropy_matches_onnxruntime() -> None:
    scores = RNG.standard_normal((3, 5, 2)).astype(np.float32)
    labels = RNG.integers(0, 5, (3, 2)).astype(np.int64)
    expected = run_node(
        "SoftmaxCrossEntropyLoss", [scores, labels], opset=13, outputs=2, reduction="sum"
    )
    got = softmax_cross_entropy_loss(scores, labels, reduction="sum")
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_dropout_versions_in_inference() -> None:
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    for fn in (dropout_7, dropout_10):
        y, mask = fn(x, ratio=0.3)
        np.testing.assert_array_equal(y, x)
    assert dropout_7(x)[1].dtype == np.float32 and dropout_10(x)[1].dtype == np.bool_
    y, mask = dropout_1(x, is_test=1)
    np.testing.assert_array_equal(y, x)
    y, mask = dropout_12(x, np.array(0.5, np.float32), np.array(False))
    np.testing.assert_array_equal(y, x)
    assert mask.all()


def test_dropout_training_scales_kept_values_and_is_seeded() -> None:
    x = RNG.standard_normal((50, 40)).astype(np.float32)
    y, mask = dropout_12(x, np.array(0.25, np.float32), np.array(True), seed=5)
    _, mask2 = dropout_12(x, np.array(0.25, np.float32), np.array(True), seed=5)
    np.testing.assert_array_equal(mask, mask2)
    np.testing.assert_allclose(y[mask], x[mask] / 0.75, rtol=1e-6)
    assert not y[~mask].any()
    assert 0.65 < mask.mean() < 0.85
