"""CenterCropPad: crop or zero-pad chosen axes to a size, keeping the content centred."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import fail, normalize_axes

__all__ = ["register"]


def center_crop_pad(
    data: np.ndarray, shape: np.ndarray, *, axes: Sequence[int] | None = None
) -> np.ndarray:
    """CenterCropPad-18: each listed axis is cropped or padded around its centre."""
    op = "CenterCropPad"
    chosen = normalize_axes(axes, data.ndim, op=op) if axes else tuple(range(data.ndim))
    target = [int(v) for v in np.asarray(shape).reshape(-1)]
    if len(target) != len(chosen):
        fail(op, f"shape must have {len(chosen)} entries (one per axis), got {target}")
    if any(t < 0 for t in target):
        fail(op, f"shape must be non-negative, got {target}")
    crop = [slice(None)] * data.ndim
    pads = [(0, 0)] * data.ndim
    for axis, size in zip(chosen, target, strict=True):
        current = data.shape[axis]
        if size < current:
            start = (current - size) // 2
            crop[axis] = slice(start, start + size)
        elif size > current:
            before = (size - current) // 2
            pads[axis] = (before, size - current - before)
    cropped = data[tuple(crop)]
    if all(p == (0, 0) for p in pads):
        return cropped
    # Zero padding, built by hand so every element type works (strings pad with "").
    out_shape = tuple(n + b + a for n, (b, a) in zip(cropped.shape, pads, strict=True))
    result = np.zeros(out_shape, data.dtype)
    if data.dtype.kind == "O":
        result[...] = ""
    inner = tuple(slice(b, b + n) for n, (b, _) in zip(cropped.shape, pads, strict=True))
    result[inner] = cropped
    return result


def register(kernels: KernelRegistry) -> None:
    """Add CenterCropPad to ``kernels``."""
    kernels.add("CenterCropPad", center_crop_pad, since=18)
