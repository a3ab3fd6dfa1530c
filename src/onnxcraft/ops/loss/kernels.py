"""Loss kernels: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss."""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail

__all__ = ["register"]

REDUCTIONS = ("none", "sum", "mean")


def _nll(
    op: str,
    log_prob: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray | None,
    *,
    ignore_index: int | None,
    reduction: str,
) -> np.ndarray:
    """Weighted negative log-likelihood of ``target`` classes, reduced as asked."""
    if reduction not in REDUCTIONS:
        fail(op, f"reduction must be one of {REDUCTIONS}, got {reduction!r}")
    if log_prob.ndim < 2:
        fail(op, f"input must have rank >= 2 (N, C, ...), got shape {log_prob.shape}")
    expected = log_prob.shape[:1] + log_prob.shape[2:]
    if target.shape != expected:
        fail(
            op, f"target must have shape {expected} for input {log_prob.shape}, got {target.shape}"
        )
    classes = log_prob.shape[1]
    labels = target.astype(np.int64)
    ignored = labels == ignore_index if ignore_index is not None else np.zeros(labels.shape, bool)
    safe = np.where(ignored, 0, labels)
    if np.any((safe < 0) | (safe >= classes)):
        fail(
            op,
            f"target values must lie in [0, {classes}) (or equal ignore_index), got "
            f"{np.unique(labels[(safe < 0) | (safe >= classes)]).tolist()}",
        )
    ct = np.float64 if log_prob.dtype == np.float64 else np.float32
    picked = np.take_along_axis(log_prob.astype(ct), safe[:, np.newaxis], axis=1)[:, 0]
    if weight is not None:
        if weight.shape != (classes,):
            fail(op, f"weight must have shape ({classes},), got {weight.shape}")
        w = weight.astype(ct)[safe]
    else:
        w = np.ones(safe.shape, ct)
    w = np.where(ignored, ct(0), w)
    loss = -picked * w
    if reduction == "none":
        return loss.astype(log_prob.dtype)
    total = loss.sum(dtype=ct)
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            total = total / w.sum(dtype=ct)
    return np.asarray(total, dtype=log_prob.dtype)


@compute_in_float32
def negative_log_likelihood_loss(
    x: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray | None = None,
    *,
    ignore_index: int | None = None,
    reduction: str = "mean",
) -> np.ndarray:
    """NegativeLogLikelihoodLoss (every version): ``-input[n, target[n], ...] * weight``."""
    return _nll(
        "NegativeLogLikelihoodLoss",
        x,
        target,
        weight,
        ignore_index=ignore_index,
        reduction=reduction,
    )


def _log_softmax(scores: np.ndarray) -> np.ndarray:
    shifted = scores - scores.max(axis=1, keepdims=True)
    result: np.ndarray = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return result


@compute_in_float32
def softmax_cross_entropy_loss(
    scores: np.ndarray,
    labels: np.ndarray,
    weights: np.ndarray | None = None,
    *,
    ignore_index: int | None = None,
    reduction: str = "mean",
) -> tuple[np.ndarray, np.ndarray]:
    """SoftmaxCrossEntropyLoss (every version): NLL of the log-softmax over axis 1."""
    op = "SoftmaxCrossEntropyLoss"
    if scores.ndim < 2:
        fail(op, f"scores must have rank >= 2 (N, C, ...), got shape {scores.shape}")
    ct: Any = np.float64 if scores.dtype == np.float64 else np.float32
    log_prob = _log_softmax(scores.astype(ct))
    loss = _nll(op, log_prob, labels, weights, ignore_index=ignore_index, reduction=reduction)
    return loss.astype(scores.dtype), log_prob.astype(scores.dtype)


def register(kernels: KernelRegistry) -> None:
    """Add the loss kernels to ``kernels``."""
    kernels.add("NegativeLogLikelihoodLoss", negative_log_likelihood_loss, since=(12, 13, 22))
    kernels.add("SoftmaxCrossEntropyLoss", softmax_cross_entropy_loss, since=(12, 13))
