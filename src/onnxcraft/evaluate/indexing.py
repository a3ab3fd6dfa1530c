"""Kernels for Gather and GatherElements."""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.evaluate._versions import versions
from onnxcraft.evaluate.common import fail, normalize_axis
from onnxcraft.evaluate.registry import KernelRegistry

__all__ = ["register"]


def _checked(op: str, indices: np.ndarray, dim: int) -> np.ndarray:
    indices = indices.astype(np.int64)
    if indices.size and (indices.min() < -dim or indices.max() >= dim):
        fail(op, f"indices must be in [{-dim}, {dim - 1}], got values from {indices.min()} to {indices.max()}")
    return np.where(indices < 0, indices + dim, indices)


def gather(data: Any, indices: Any, *, axis: int = 0) -> np.ndarray:
    data, indices = np.asarray(data), np.asarray(indices)
    a = normalize_axis(axis, data.ndim, op="Gather")
    return np.take(data, _checked("Gather", indices, data.shape[a]), axis=a)


def gather_elements(data: Any, indices: Any, *, axis: int = 0) -> np.ndarray:
    data, indices = np.asarray(data), np.asarray(indices)
    a = normalize_axis(axis, data.ndim, op="GatherElements")
    if indices.ndim != data.ndim:
        fail("GatherElements", f"indices has rank {indices.ndim}, data has rank {data.ndim}")
    return np.take_along_axis(data, _checked("GatherElements", indices, data.shape[a]), axis=a)


def register(kernels: KernelRegistry) -> None:
    kernels.add("Gather", gather, since=versions("Gather"))
    kernels.add("GatherElements", gather_elements, since=versions("GatherElements"))
