"""Region-of-interest pooling: RoiAlign and MaxRoiPool.

Regions are looped over (there are few); within a region every sample point or bin is
computed at once from per-axis index and weight arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail
from onnxcraft.ops.run_guard import check_allocation, ticker

__all__ = ["register"]


def _sample_axis(
    start: float, bin_size: float, bins: int, grid: int, length: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bilinear taps of the regularly spaced sample points of one axis of a region.

    Returns the low and high neighbour indices, their weights, and which samples lie close
    enough to the image to count (others contribute zero), each of length ``bins * grid``.
    """
    steps = (np.arange(grid) + 0.5) * bin_size / grid
    pos = start + np.arange(bins)[:, np.newaxis] * bin_size + steps[np.newaxis, :]
    pos = pos.reshape(-1)
    valid = (pos >= -1.0) & (pos <= length)
    pos = np.maximum(pos, 0.0)
    low = np.floor(pos).astype(np.int64)
    at_end = low >= length - 1
    low = np.where(at_end, length - 1, low)
    high = np.where(at_end, length - 1, low + 1)
    pos = np.where(at_end, low.astype(np.float64), pos)
    frac = pos - low
    w_low = np.where(valid, 1 - frac, 0.0)
    w_high = np.where(valid, frac, 0.0)
    return low, high, w_low, w_high, valid


def _roi_align(
    x: np.ndarray,
    rois: np.ndarray,
    batch_indices: np.ndarray,
    *,
    half_pixel: bool,
    mode: str,
    output_height: int,
    output_width: int,
    sampling_ratio: int,
    spatial_scale: float,
) -> np.ndarray:
    op = "RoiAlign"
    if x.ndim != 4:
        fail(op, f"X must be 4-D (N, C, H, W), got shape {x.shape}")
    if rois.ndim != 2 or rois.shape[1] != 4:
        fail(op, f"rois must have shape (num_rois, 4), got {rois.shape}")
    if batch_indices.shape != (rois.shape[0],):
        fail(op, f"batch_indices must have shape ({rois.shape[0]},), got {batch_indices.shape}")
    if mode not in ("avg", "max"):
        fail(op, f"mode must be 'avg' or 'max', got {mode!r}")
    n, c, height, width = x.shape
    if np.any((batch_indices < 0) | (batch_indices >= n)):
        fail(op, f"batch_indices must lie in [0, {n}), got {batch_indices.tolist()}")
    ct: Any = np.float64 if x.dtype == np.float64 else np.float32
    check_allocation(op, (rois.shape[0], c, output_height, output_width), ct)
    out = np.zeros((rois.shape[0], c, output_height, output_width), ct)
    offset = 0.5 if half_pixel else 0.0
    tick = ticker()  # many regions stop between regions when cancelled or out of time
    for r, (box, b) in enumerate(zip(rois.astype(np.float64), batch_indices, strict=True)):
        tick()
        x1, y1, x2, y2 = (float(v) * spatial_scale - offset for v in box)
        roi_w, roi_h = x2 - x1, y2 - y1
        if not half_pixel:  # the legacy mode forces regions to be at least one pixel
            roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
        bin_h, bin_w = roi_h / output_height, roi_w / output_width
        grid_h = sampling_ratio if sampling_ratio > 0 else int(np.ceil(roi_h / output_height))
        grid_w = sampling_ratio if sampling_ratio > 0 else int(np.ceil(roi_w / output_width))
        if grid_h <= 0 or grid_w <= 0:
            continue
        # A huge region with an adaptive sampling ratio asks for that many samples a bin.
        check_allocation(op, (c, output_height, grid_h, output_width, grid_w), ct)
        ylo, yhi, wylo, wyhi, _ = _sample_axis(y1, bin_h, output_height, grid_h, height)
        xlo, xhi, wxlo, wxhi, _ = _sample_axis(x1, bin_w, output_width, grid_w, width)
        image = x[int(b)].astype(ct)
        corners = [
            (ya, xa, wy[:, np.newaxis] * wx[np.newaxis, :])
            for ya, wy in ((ylo, wylo), (yhi, wyhi))
            for xa, wx in ((xlo, wxlo), (xhi, wxhi))
        ]
        weighted = [image[:, ya[:, np.newaxis], xa[np.newaxis, :]] * w for ya, xa, w in corners]
        shape = (c, output_height, grid_h, output_width, grid_w)
        if mode == "avg":
            samples = sum(weighted[1:], weighted[0]).reshape(shape)
            out[r] = samples.sum(axis=(2, 4)) / (grid_h * grid_w)
        else:
            # The maximum of the weighted corner values, then over the bin's samples,
            # as the reference implementations define max mode.
            samples = np.maximum.reduce(weighted).reshape(shape)
            out[r] = samples.max(axis=(2, 4))
    return out.astype(x.dtype)


@compute_in_float32
def roi_align_16(
    x: np.ndarray,
    rois: np.ndarray,
    batch_indices: np.ndarray,
    *,
    coordinate_transformation_mode: str = "half_pixel",
    mode: str = "avg",
    output_height: int = 1,
    output_width: int = 1,
    sampling_ratio: int = 0,
    spatial_scale: float = 1.0,
) -> np.ndarray:
    """RoiAlign-16/22: ``coordinate_transformation_mode`` half_pixel or output_half_pixel."""
    if coordinate_transformation_mode not in ("half_pixel", "output_half_pixel"):
        fail(
            "RoiAlign",
            "coordinate_transformation_mode must be 'half_pixel' or "
            f"'output_half_pixel', got {coordinate_transformation_mode!r}",
        )
    return _roi_align(
        x,
        rois,
        batch_indices,
        half_pixel=coordinate_transformation_mode == "half_pixel",
        mode=mode,
        output_height=output_height,
        output_width=output_width,
        sampling_ratio=sampling_ratio,
        spatial_scale=spatial_scale,
    )


@compute_in_float32
def roi_align_10(
    x: np.ndarray,
    rois: np.ndarray,
    batch_indices: np.ndarray,
    *,
    mode: str = "avg",
    output_height: int = 1,
    output_width: int = 1,
    sampling_ratio: int = 0,
    spatial_scale: float = 1.0,
) -> np.ndarray:
    """RoiAlign-10: always the legacy (output_half_pixel) coordinates."""
    return _roi_align(
        x,
        rois,
        batch_indices,
        half_pixel=False,
        mode=mode,
        output_height=output_height,
        output_width=output_width,
        sampling_ratio=sampling_ratio,
        spatial_scale=spatial_scale,
    )


def _round_half_away(v: float) -> int:
    return int(np.floor(v + 0.5)) if v >= 0 else int(np.ceil(v - 0.5))


def _bin_edges(start: int, size: int, bins: int, limit: int) -> list[tuple[int, int]]:
    """[begin, end) of each bin of a region along one axis, clipped to the image."""
    step = size / bins
    edges = []
    for i in range(bins):
        lo = min(max(int(np.floor(i * step)) + start, 0), limit)
        hi = min(max(int(np.ceil((i + 1) * step)) + start, 0), limit)
        edges.append((lo, hi))
    return edges


def _max_over_bins(values: np.ndarray, axis: int, edges: list[tuple[int, int]]) -> np.ndarray:
    """Maximum over each [begin, end) slice of ``axis``; an empty bin gives 0."""
    pieces = []
    for lo, hi in edges:
        if hi <= lo:
            shape = list(values.shape)
            shape[axis] = 1
            pieces.append(np.zeros(shape, values.dtype))
        else:
            pieces.append(
                np.take(values, np.arange(lo, hi), axis=axis).max(axis=axis, keepdims=True)
            )
    return np.concatenate(pieces, axis=axis)


@compute_in_float32
def max_roi_pool(
    x: np.ndarray,
    rois: np.ndarray,
    *,
    pooled_shape: Sequence[int] | None = None,
    spatial_scale: float = 1.0,
) -> np.ndarray:
    """MaxRoiPool: the maximum of each of pooled_shape bins of every region."""
    op = "MaxRoiPool"
    if x.ndim != 4:
        fail(op, f"X must be 4-D (N, C, H, W), got shape {x.shape}")
    if rois.ndim != 2 or rois.shape[1] != 5:
        fail(op, f"rois must have shape (num_rois, 5): batch, x1, y1, x2, y2; got {rois.shape}")
    if not pooled_shape or len(pooled_shape) != 2 or min(pooled_shape) < 1:
        fail(op, f"pooled_shape must be two positive ints, got {pooled_shape}")
    ph, pw = (int(v) for v in pooled_shape)
    n, c, height, width = x.shape
    check_allocation(op, (rois.shape[0], c, ph, pw), x.dtype)
    out = np.zeros((rois.shape[0], c, ph, pw), x.dtype)
    tick = ticker()
    for r, roi in enumerate(rois.astype(np.float64)):
        tick()
        b = int(roi[0])
        if not 0 <= b < n:
            fail(op, f"roi {r} names batch {b}, outside [0, {n})")
        x1, y1, x2, y2 = (_round_half_away(float(v) * spatial_scale) for v in roi[1:])
        rows = _bin_edges(y1, max(y2 - y1 + 1, 1), ph, height)
        cols = _bin_edges(x1, max(x2 - x1 + 1, 1), pw, width)
        out[r] = _max_over_bins(_max_over_bins(x[b], 2, cols), 1, rows)
    return out


def register(kernels: KernelRegistry) -> None:
    """Add RoiAlign and MaxRoiPool to ``kernels``."""
    kernels.add("RoiAlign", roi_align_10, since=10)
    kernels.add("RoiAlign", roi_align_16, since=(16, 22))
    kernels.add("MaxRoiPool", max_roi_pool, since=(1, 22))
