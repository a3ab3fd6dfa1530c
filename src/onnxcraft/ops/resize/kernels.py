"""Resize and Upsample: separable nearest / linear / cubic interpolation.

Interpolation is separable, so the image is resized one axis at a time: for each axis an
output position maps to a source coordinate (``coordinate_transformation_mode``), then to a few
neighbouring source indices with weights; one gather plus a weighted sum resizes the axis.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail, normalize_axes
from onnxcraft.ops.resize.shapes import kept_aspect_sizes, scaled_size, size_ratio
from onnxcraft.ops.run_guard import check_allocation

__all__ = ["register"]

COORDINATE_MODES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_half_pixel_for_nn",
    "tf_crop_and_resize",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")


@dataclass(frozen=True)
class AxisPlan:
    """How one axis is resized: source indices (out, taps), weights, and extrapolated rows."""

    indices: np.ndarray
    weights: np.ndarray | None  # None: nearest, take the single index
    outside: np.ndarray | None  # True where tf_crop_and_resize extrapolates


@dataclass(frozen=True)
class ResizeOptions:
    """The attributes that shape every axis plan."""

    mode: str
    coordinate_mode: str
    nearest_mode: str
    cubic_coeff_a: float
    exclude_outside: bool
    antialias: bool


def _source_coordinates(
    coordinate_mode: str, out_len: int, in_len: int, scale: float, roi: tuple[float, float]
) -> np.ndarray:
    """The source coordinate of every output position along one axis."""
    y = np.arange(out_len, dtype=np.float64)
    nominal_out = scale * in_len  # the un-rounded output length the scale implies
    if coordinate_mode == "half_pixel":
        return (y + 0.5) / scale - 0.5
    if coordinate_mode == "half_pixel_symmetric":
        shift = in_len / 2 * (1 - out_len / nominal_out)
        return shift + (y + 0.5) / scale - 0.5
    if coordinate_mode == "pytorch_half_pixel":
        return (y + 0.5) / scale - 0.5 if nominal_out > 1 else np.full(out_len, -0.5)
    if coordinate_mode == "align_corners":
        if nominal_out == 1:
            return np.zeros(out_len)
        return y * (in_len - 1) / (nominal_out - 1)
    if coordinate_mode == "asymmetric":
        return y / scale
    if coordinate_mode == "tf_half_pixel_for_nn":
        return (y + 0.5) / scale
    start, end = roi
    if nominal_out == 1:
        coords = np.full(out_len, (end - start) * (in_len - 1) / 2)
    else:
        coords = y * (end - start) * (in_len - 1) / (nominal_out - 1)
    return coords + start * (in_len - 1)


def _nearest_indices(x: np.ndarray, nearest_mode: str, scale: float) -> np.ndarray:
    base = np.floor(x)
    frac = x - base
    if nearest_mode == "round_prefer_floor":
        up = frac > 0.5
    elif nearest_mode == "round_prefer_ceil":
        up = frac >= 0.5
    elif nearest_mode == "floor":
        up = np.zeros(x.shape, bool)
    elif nearest_mode == "ceil":
        up = frac > 0
    else:  # "simple", the rule of Upsample and Resize-10: floor up, ceil down
        up = frac > 0 if scale < 1 else np.zeros(x.shape, bool)
    return np.asarray((base + up).astype(np.int64))


def _cubic_kernel(t: np.ndarray, a: float) -> np.ndarray:
    t = np.abs(t)
    near = ((a + 2) * t - (a + 3)) * t * t + 1
    far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return np.where(t <= 1, near, np.where(t < 2, far, 0.0))


def _filter_weights(
    options: ResizeOptions, ratio: np.ndarray, scale: float
) -> tuple[np.ndarray, np.ndarray]:
    """Offsets from the base index (taps,) and weights (out, taps) of linear/cubic filters."""
    support = 1.0 if options.mode == "linear" else 2.0
    # Antialiasing stretches the filter by 1/scale when downsampling.
    stretch = min(scale, 1.0) if options.antialias else 1.0
    first = int(np.floor(-support / stretch)) + 1
    offsets = np.arange(first, 2 - first)
    t = (offsets[np.newaxis, :] - ratio[:, np.newaxis]) * stretch
    if options.mode == "linear":
        weights = np.clip(1 - np.abs(t), 0.0, 1.0)
    else:
        weights = _cubic_kernel(t, options.cubic_coeff_a)
    if options.antialias:
        weights = weights / weights.sum(axis=1, keepdims=True)
    return offsets, weights


def _plan_axis(
    options: ResizeOptions, in_len: int, out_len: int, scale: float, roi: tuple[float, float]
) -> AxisPlan:
    x = _source_coordinates(options.coordinate_mode, out_len, in_len, scale, roi)
    outside = None
    if options.coordinate_mode == "tf_crop_and_resize":
        outside = (x < 0) | (x > in_len - 1)
    if options.mode == "nearest":
        index = np.clip(_nearest_indices(x, options.nearest_mode, scale), 0, max(in_len - 1, 0))
        return AxisPlan(index, None, outside)
    # The base index is the neighbour at or left of x; an exact integer x counts as the
    # right end of the interval starting one below it (ratio 1), as the standard's filters do.
    base = np.floor(x)
    base = np.where(base == x, x - 1, base)
    ratio = x - base
    offsets, weights = _filter_weights(options, ratio, scale)
    indices = base.astype(np.int64)[:, np.newaxis] + offsets[np.newaxis, :]
    if options.exclude_outside:
        weights = np.where((indices < 0) | (indices >= in_len), 0.0, weights)
        total = weights.sum(axis=1, keepdims=True)
        weights = weights / np.where(total == 0, 1.0, total)
    return AxisPlan(np.clip(indices, 0, max(in_len - 1, 0)), weights, outside)


def _apply_plan(data: np.ndarray, axis: int, plan: AxisPlan, extrapolation: float) -> np.ndarray:
    if plan.weights is None:
        result = np.take(data, plan.indices, axis=axis)
    else:
        # One gather per tap, accumulated: cheaper than gathering (out, taps) and reducing.
        shape = (1,) * axis + (-1,) + (1,) * (data.ndim - axis - 1)
        weights = plan.weights.astype(data.dtype)
        result = np.take(data, plan.indices[:, 0], axis=axis) * weights[:, 0].reshape(shape)
        for tap in range(1, plan.indices.shape[1]):
            result += np.take(data, plan.indices[:, tap], axis=axis) * weights[:, tap].reshape(
                shape
            )
    if plan.outside is not None and plan.outside.any():
        mask = plan.outside.reshape((1,) * axis + (-1,) + (1,) * (data.ndim - axis - 1))
        result = np.where(mask, extrapolation, result)
    return result


def _resize(
    op: str,
    x: np.ndarray,
    *,
    out_shape: Sequence[int],
    scales: Sequence[float],
    rois: Sequence[tuple[float, float]],
    options: ResizeOptions,
    extrapolation_value: float,
) -> np.ndarray:
    check_allocation(op, out_shape, x.dtype)
    if options.mode not in ("nearest", "linear", "cubic"):
        fail(op, f"mode must be 'nearest', 'linear' or 'cubic', got {options.mode!r}")
    if options.coordinate_mode not in COORDINATE_MODES:
        fail(
            op,
            f"coordinate_transformation_mode must be one of {COORDINATE_MODES}, got "
            f"{options.coordinate_mode!r}",
        )
    if options.nearest_mode not in NEAREST_MODES:
        fail(op, f"nearest_mode must be one of {NEAREST_MODES[:4]}, got {options.nearest_mode!r}")
    if any(n < 0 for n in out_shape):
        fail(op, f"the output shape {list(out_shape)} has a negative dimension")
    exact = options.mode == "nearest"
    numeric = x.dtype.kind in "iufc"
    if not exact and not numeric:
        fail(op, f"mode {options.mode!r} needs a numeric input, got element type {x.dtype}")
    if options.coordinate_mode == "tf_crop_and_resize" and not numeric:
        fail(op, f"tf_crop_and_resize extrapolates numbers; the input's type is {x.dtype}")
    result: np.ndarray = x if exact else x.astype(_compute_dtype(x.dtype))
    for axis in range(x.ndim):
        in_len, out_len, scale = x.shape[axis], int(out_shape[axis]), float(scales[axis])
        identity = out_len == in_len and scale == 1.0 and rois[axis] == (0.0, 1.0)
        if identity and options.coordinate_mode != "tf_crop_and_resize":
            continue
        if in_len == 0 or out_len == 0:
            result = np.zeros(
                (*result.shape[:axis], out_len, *result.shape[axis + 1 :]), result.dtype
            )
            continue
        plan = _plan_axis(options, in_len, out_len, scale, rois[axis])
        result = _apply_plan(result, axis, plan, extrapolation_value)
    return _to_type(result, x.dtype)


def _compute_dtype(dtype: np.dtype[Any]) -> type[np.number[Any]]:
    """float32 holds float16 and 8/16-bit integers exactly; wider types need float64."""
    if dtype.kind == "c":
        return np.complex128
    if dtype.itemsize >= 4 and dtype != np.float32:
        return np.float64
    return np.float32


def _to_type(values: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    if dtype.kind in "iu" and values.dtype.kind == "f":
        info = np.iinfo(dtype)
        return np.asarray(np.clip(np.rint(values), info.min, info.max).astype(dtype))
    return values.astype(dtype, copy=False)


def _output_geometry(
    op: str,
    x: np.ndarray,
    *,
    scales: np.ndarray | None,
    sizes: np.ndarray | None,
    axes: Sequence[int],
    keep_aspect_ratio_policy: str,
) -> tuple[list[int], list[float]]:
    """Output shape and per-axis scale factors from ``scales`` or ``sizes``."""
    rank = x.ndim
    out = list(x.shape)
    factors = [1.0] * rank
    has_scales = scales is not None and scales.size > 0
    has_sizes = sizes is not None and sizes.size > 0
    if has_scales == has_sizes:
        fail(op, "exactly one of 'scales' and 'sizes' must be given (non-empty)")
    if has_scales:
        assert scales is not None
        values = scales.astype(np.float64).reshape(-1)
        if values.size != len(axes):
            fail(op, f"scales must have {len(axes)} entries, got {values.size}")
        if np.any(values <= 0):
            fail(op, f"scales must be positive, got {values.tolist()}")
        for a, s in zip(axes, values, strict=True):
            factors[a] = float(s)
            out[a] = scaled_size(x.shape[a], float(s))
        return out, factors
    assert sizes is not None
    wanted = [int(v) for v in sizes.reshape(-1)]
    if len(wanted) != len(axes):
        fail(op, f"sizes must have {len(axes)} entries, got {len(wanted)}")
    if keep_aspect_ratio_policy == "stretch":
        for a, w in zip(axes, wanted, strict=True):
            out[a], factors[a] = w, size_ratio(w, x.shape[a])
        return out, factors
    if keep_aspect_ratio_policy not in ("not_larger", "not_smaller"):
        fail(
            op,
            "keep_aspect_ratio_policy must be 'stretch', 'not_larger' or 'not_smaller', "
            f"got {keep_aspect_ratio_policy!r}",
        )
    common, kept = kept_aspect_sizes([x.shape[a] for a in axes], wanted, keep_aspect_ratio_policy)
    for a, n in zip(axes, kept, strict=True):
        factors[a], out[a] = common, n
    return out, factors


def _roi_pairs(
    op: str, roi: np.ndarray | None, rank: int, axes: Sequence[int], needed: bool
) -> list[tuple[float, float]]:
    pairs = [(0.0, 1.0)] * rank
    if roi is None or roi.size == 0:
        if needed:
            fail(op, "coordinate_transformation_mode 'tf_crop_and_resize' needs the roi input")
        return pairs
    values = roi.astype(np.float64).reshape(-1)
    if values.size != 2 * len(axes):
        fail(op, f"roi must have {2 * len(axes)} entries (starts then ends), got {values.size}")
    for i, a in enumerate(axes):
        pairs[a] = (float(values[i]), float(values[len(axes) + i]))
    return pairs


@compute_in_float32
def resize(
    x: np.ndarray,
    roi: np.ndarray | None = None,
    scales: np.ndarray | None = None,
    sizes: np.ndarray | None = None,
    *,
    antialias: int = 0,
    axes: Sequence[int] | None = None,
    coordinate_transformation_mode: str = "half_pixel",
    cubic_coeff_a: float = -0.75,
    exclude_outside: int = 0,
    extrapolation_value: float = 0.0,
    keep_aspect_ratio_policy: str = "stretch",
    mode: str = "nearest",
    nearest_mode: str = "round_prefer_floor",
) -> np.ndarray:
    """Resize-11 and later (roi, scales or sizes; v18 antialias/axes/aspect; v19 modes)."""
    op = "Resize"
    if antialias and mode == "nearest":
        fail(op, "antialias is only defined for the linear and cubic modes")
    all_axes = normalize_axes(axes, x.ndim, op=op) if axes else tuple(range(x.ndim))
    out, factors = _output_geometry(
        op,
        x,
        scales=scales,
        sizes=sizes,
        axes=all_axes,
        keep_aspect_ratio_policy=keep_aspect_ratio_policy,
    )
    rois = _roi_pairs(
        op, roi, x.ndim, all_axes, coordinate_transformation_mode == "tf_crop_and_resize"
    )
    options = ResizeOptions(
        mode,
        coordinate_transformation_mode,
        nearest_mode,
        float(cubic_coeff_a),
        bool(exclude_outside),
        bool(antialias),
    )
    return _resize(
        op,
        x,
        out_shape=out,
        scales=factors,
        rois=rois,
        options=options,
        extrapolation_value=float(extrapolation_value),
    )


def _legacy_resize(op: str, x: np.ndarray, scales: Sequence[float], mode: str) -> np.ndarray:
    """Resize-10 / Upsample: asymmetric coordinates, nearest rounding per the scale."""
    if len(scales) != x.ndim:
        fail(op, f"scales must have one entry per input axis ({x.ndim}), got {list(scales)}")
    if any(s <= 0 for s in scales):
        fail(op, f"scales must be positive, got {list(scales)}")
    if mode == "bilinear":
        mode = "linear"
    out = [scaled_size(n, s) for s, n in zip(scales, x.shape, strict=True)]
    options = ResizeOptions(mode, "asymmetric", "simple", -0.75, False, False)
    return _resize(
        op,
        x,
        out_shape=out,
        scales=[float(s) for s in scales],
        rois=[(0.0, 1.0)] * x.ndim,
        options=options,
        extrapolation_value=0.0,
    )


@compute_in_float32
def resize_10(x: np.ndarray, scales: np.ndarray, *, mode: str = "nearest") -> np.ndarray:
    """Resize-10: scales input, nearest or linear."""
    return _legacy_resize("Resize", x, [float(s) for s in scales.reshape(-1)], mode)


@compute_in_float32
def upsample_9(x: np.ndarray, scales: np.ndarray, *, mode: str = "nearest") -> np.ndarray:
    """Upsample-9/10: scales input."""
    return _legacy_resize("Upsample", x, [float(s) for s in scales.reshape(-1)], mode)


@compute_in_float32
def upsample_7(
    x: np.ndarray, *, mode: str = "nearest", scales: Sequence[float] | None = None
) -> np.ndarray:
    """Upsample-7: scales attribute."""
    if not scales:
        fail("Upsample", "attribute scales is required")
    return _legacy_resize("Upsample", x, [float(s) for s in scales], mode)


@compute_in_float32
def upsample_1(
    x: np.ndarray, *, height_scale: float = 1.0, mode: str = "nearest", width_scale: float = 1.0
) -> np.ndarray:
    """Upsample-1: height and width scales of a 4-D (N, C, H, W) input."""
    if x.ndim != 4:
        fail("Upsample", f"version 1 takes a 4-D input, got shape {x.shape}")
    return _legacy_resize("Upsample", x, [1.0, 1.0, float(height_scale), float(width_scale)], mode)


KERNELS: tuple[tuple[str, Callable[..., Any], tuple[int, ...]], ...] = (
    ("Resize", resize_10, (10,)),
    ("Resize", resize, (11, 13, 18, 19)),
    ("Upsample", upsample_1, (1,)),
    ("Upsample", upsample_7, (7,)),
    ("Upsample", upsample_9, (9, 10)),
)


def register(kernels: KernelRegistry) -> None:
    """Add Resize and Upsample to ``kernels``."""
    for op_type, fn, versions in KERNELS:
        kernels.add(op_type, fn, since=versions)
