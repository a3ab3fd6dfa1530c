"""Dropout, in inference (identity) and training (random mask) modes, for every version."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail
from onnxcraft.ops.lowp import as_float

__all__ = ["register"]


def _random_mask(shape: tuple[int, ...], ratio: float, seed: int | None) -> np.ndarray:
    """Keep each element with probability ``1 - ratio``; a seed makes the draw repeatable."""
    # A seeded legacy RandomState gives the same stream as numpy's global seeding, which is
    # how the standard's reference outputs for seeded Dropout were produced.
    uniform = (
        np.random.RandomState(seed).uniform(0.0, 1.0, shape)
        if seed is not None
        else np.random.default_rng().uniform(0.0, 1.0, shape)
    )
    mask: np.ndarray = uniform >= ratio
    return mask


@compute_in_float32
def _drop(data: np.ndarray, ratio: float, seed: int | None) -> tuple[np.ndarray, np.ndarray]:
    if not 0.0 <= ratio < 1.0 and ratio != 1.0:
        fail("Dropout", f"ratio must lie in [0, 1), got {ratio}")
    if ratio == 0.0:
        return data.copy(), np.ones(data.shape, bool)
    mask = _random_mask(data.shape, ratio, seed)
    if ratio == 1.0:
        return np.zeros_like(data), mask
    scale = 1.0 / (1.0 - ratio)
    kept = np.where(mask, data.astype(np.float64) * scale, 0.0)
    return kept.astype(data.dtype), mask


def dropout_12(
    data: np.ndarray,
    ratio: np.ndarray | None = None,
    training_mode: np.ndarray | None = None,
    *,
    seed: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Dropout-12 and later: ``ratio`` and ``training_mode`` are optional inputs."""
    training = training_mode is not None and bool(np.asarray(training_mode).reshape(()))
    if not training:
        return data, np.ones(data.shape, bool)
    # ratio may be any float type, bfloat16 and float8 included
    rate = 0.5 if ratio is None else float(as_float(np.asarray(ratio)).reshape(()))
    return _drop(data, rate, seed)


def dropout_10(data: np.ndarray, *, ratio: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Dropout-10: inference only; the mask is boolean."""
    return data, np.ones(data.shape, bool)


def dropout_7(data: np.ndarray, *, ratio: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Dropout-7: inference only; the mask has the data's type."""
    return data, np.ones(data.shape, data.dtype)


def dropout_1(
    data: np.ndarray,
    *,
    consumed_inputs: Sequence[int] | None = None,
    is_test: int = 0,
    ratio: float = 0.5,
) -> tuple[np.ndarray, np.ndarray]:
    """Dropout-1/6: training unless ``is_test``; the mask has the data's type."""
    if is_test:
        return data, np.ones(data.shape, data.dtype)
    out, mask = _drop(data, float(ratio), None)
    return out, mask.astype(data.dtype)


def register(kernels: KernelRegistry) -> None:
    """Add Dropout to ``kernels``."""
    versions: tuple[tuple[Any, tuple[int, ...]], ...] = (
        (dropout_1, (1, 6)),
        (dropout_7, (7,)),
        (dropout_10, (10,)),
        (dropout_12, (12, 13, 22)),
    )
    for fn, since in versions:
        kernels.add("Dropout", fn, since=since)
