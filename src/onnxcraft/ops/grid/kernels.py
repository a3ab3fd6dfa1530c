"""Sampling on normalized grids: GridSample (N-D, every mode and padding) and AffineGrid.

GridSample gathers, for every output point at once, the few neighbours each interpolation
mode needs (1 nearest, 2 linear, 4 cubic per axis); only the neighbour combinations are
looped over, never the output points.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail
from onnxcraft.ops.lowp import as_float, encode_like

__all__ = ["register"]

MODE_ALIASES = {"bilinear": "linear", "bicubic": "cubic"}
PADDING_MODES = ("zeros", "border", "reflection")
CUBIC_A = -0.75


def _denormalize(g: np.ndarray, length: int, align_corners: bool) -> np.ndarray:
    """Map normalized [-1, 1] coordinates to pixel coordinates along one axis."""
    if align_corners:
        return (g + 1) / 2 * (length - 1)
    return ((g + 1) * length - 1) / 2


def _reflect(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Fold coordinates outside [lo, hi] back in, mirroring at the borders repeatedly."""
    span = hi - lo
    if span <= 0:
        return np.full(x.shape, lo)
    below = x < lo
    above = x > hi
    distance = np.where(below, lo - x, np.where(above, x - hi, 0.0))
    folds = np.floor(distance / span)
    rest = distance - folds * span
    even = folds % 2 == 0
    from_below = np.where(even, lo + rest, hi - rest)
    from_above = np.where(even, hi - rest, lo + rest)
    return np.where(below, from_below, np.where(above, from_above, x))


def _cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    """Keys cubic weights of the neighbours at offsets -1, 0, 1, 2 from floor(x)."""
    a = CUBIC_A

    def near(d: np.ndarray) -> np.ndarray:
        result: np.ndarray = ((a + 2) * d - (a + 3)) * d * d + 1
        return result

    def far(d: np.ndarray) -> np.ndarray:
        result: np.ndarray = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
        return result

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _axis_taps(x: np.ndarray, mode: str) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """(index, weight) of each neighbour along one axis; weight None means 1."""
    if mode == "nearest":
        return [(x.astype(np.int64), None)]
    base = np.floor(x)
    frac = x - base
    start = base.astype(np.int64)
    if mode == "linear":
        return [(start, 1 - frac), (start + 1, frac)]
    weights = _cubic_weights(frac)
    return [(start + k - 1, w) for k, w in enumerate(weights)]


def _fetch_index(
    index: np.ndarray, length: int, padding_mode: str, lo: float, hi: float
) -> tuple[np.ndarray, np.ndarray | None]:
    """A safe gather index for neighbours, and for zeros padding the in-range mask."""
    if padding_mode == "zeros":
        inside = (index >= 0) & (index < length)
        return np.clip(index, 0, length - 1), inside
    if padding_mode == "border":
        return np.clip(index, 0, length - 1), None
    folded = np.trunc(_reflect(index.astype(np.float64), lo, hi)).astype(np.int64)
    return np.clip(folded, 0, length - 1), None


def _grid_sample(
    op: str, x: np.ndarray, grid: np.ndarray, *, mode: str, padding_mode: str, align_corners: bool
) -> np.ndarray:
    mode = MODE_ALIASES.get(mode, mode)
    if mode not in ("nearest", "linear", "cubic"):
        fail(op, f"mode must be 'nearest', 'linear' or 'cubic', got {mode!r}")
    if padding_mode not in PADDING_MODES:
        fail(op, f"padding_mode must be one of {PADDING_MODES}, got {padding_mode!r}")
    nd = x.ndim - 2
    if nd < 1 or grid.ndim != x.ndim or grid.shape[0] != x.shape[0] or grid.shape[-1] != nd:
        fail(op, f"grid must have shape (N, *out, {nd}) for X of shape {x.shape}, got {grid.shape}")
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    out_spatial = grid.shape[1:-1]
    kind = x.dtype.kind
    if kind not in "iufc" and mode != "nearest":
        fail(op, f"mode {mode!r} interpolates numbers; the input's type is {x.dtype}")
    if x.size == 0 or grid.size == 0:
        return np.zeros((n, c, *out_spatial), x.dtype)
    ct: Any = {"f": np.float64 if x.dtype == np.float64 else np.float32, "c": np.complex128}.get(
        kind, np.float64
    )
    # Channels last, so one fancy index gathers every channel of a neighbour at once.
    data = np.moveaxis(x, 1, -1) if mode == "nearest" else np.moveaxis(x.astype(ct), 1, -1)
    batch = np.arange(n).reshape((n,) + (1,) * len(out_spatial))
    per_axis = []
    for axis in range(nd):
        length = spatial[axis]
        # The grid's last dimension lists coordinates innermost axis first (x, y, ...).
        coords = _denormalize(grid[..., nd - 1 - axis].astype(np.float64), length, align_corners)
        coords = coords.astype(np.float32).astype(np.float64)
        lo, hi = (0.0, length - 1.0) if align_corners else (-0.5, length - 0.5)
        if mode == "nearest":
            coords = np.rint(coords)
        outside = (coords < lo) | (coords > hi)
        if padding_mode == "border" and mode != "cubic":
            # (Cubic clamps each of its taps instead, as PyTorch and onnxruntime do.)
            coords = np.where(outside, np.clip(coords, 0, length - 1), coords)
        elif padding_mode == "reflection":
            coords = np.where(outside, _reflect(coords, lo, hi), coords)
        taps = [
            (*_fetch_index(index, length, padding_mode, lo, hi), weight)
            for index, weight in _axis_taps(coords, mode)
        ]
        per_axis.append(taps)
    if mode == "nearest":
        return _gather_nearest(x.dtype, data, batch, [taps[0] for taps in per_axis])
    result = np.zeros((n, *out_spatial, c), ct)
    for combo in itertools.product(*per_axis):
        weight: np.ndarray | float = 1.0
        valid: np.ndarray | None = None
        for _, inside, w in combo:
            if w is not None:
                weight = weight * w
            if inside is not None:
                valid = inside if valid is None else valid & inside
        if valid is not None:
            weight = np.where(valid, weight, 0.0)
        where = (batch, *(index for index, _, _ in combo))
        values = data[where]
        result += values * np.asarray(weight, ct)[..., np.newaxis]
    moved = np.moveaxis(result, -1, 1)
    if kind in "iu":
        info = np.iinfo(x.dtype)
        moved = np.clip(np.rint(moved), info.min, info.max)
    return np.asarray(moved.astype(x.dtype))


def _gather_nearest(
    dtype: np.dtype[Any],
    data: np.ndarray,
    batch: np.ndarray,
    taps: list[tuple[np.ndarray, np.ndarray | None, np.ndarray | None]],
) -> np.ndarray:
    """Nearest sampling is a pure gather: exact for every element type."""
    where = (batch, *(index for index, _, _ in taps))
    values = data[where]
    valid: np.ndarray | None = None
    for _, inside, _ in taps:
        if inside is not None:
            valid = inside if valid is None else valid & inside
    if valid is not None:
        blank = np.zeros((), dtype) if dtype.kind != "O" else np.array("", dtype=object)
        values = np.where(valid[..., np.newaxis], values, blank)
    return np.ascontiguousarray(np.moveaxis(values, -1, 1)).astype(dtype, copy=False)


def grid_sample_16(
    x: np.ndarray,
    grid: np.ndarray,
    *,
    align_corners: int = 0,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
) -> np.ndarray:
    """GridSample-16: 4-D input, bilinear / nearest / bicubic."""
    if np.ndim(x) != 4:
        fail("GridSample", f"version 16 takes a 4-D input X, got shape {np.shape(x)}")
    return _grid_sample_any_type(x, grid, mode, padding_mode, align_corners)


def grid_sample_20(
    x: np.ndarray,
    grid: np.ndarray,
    *,
    align_corners: int = 0,
    mode: str = "linear",
    padding_mode: str = "zeros",
) -> np.ndarray:
    """GridSample-20/22: N-D input, linear / nearest / cubic."""
    return _grid_sample_any_type(x, grid, mode, padding_mode, align_corners)


def _grid_sample_any_type(
    x: np.ndarray, grid: np.ndarray, mode: str, padding_mode: str, align_corners: int
) -> np.ndarray:
    # X (T1) and grid (T2) may be of different float types; the output is X's type, so
    # low-precision inputs are decoded separately and the result encoded like X.
    values = _grid_sample(
        "GridSample",
        as_float(x),
        as_float(grid),
        mode=mode,
        padding_mode=padding_mode,
        align_corners=bool(align_corners),
    )
    return encode_like(values, np.asarray(x))


def _base_coordinates(length: int, align_corners: bool) -> np.ndarray:
    """Normalized coordinates of the pixel centres along one axis."""
    if align_corners:
        return np.linspace(-1.0, 1.0, length) if length > 1 else np.zeros(length)
    return (np.arange(length, dtype=np.float64) * 2 + 1) / length - 1


@compute_in_float32
def affine_grid(theta: np.ndarray, size: np.ndarray, *, align_corners: int = 0) -> np.ndarray:
    """AffineGrid-20: the sampling grid of a batch of 2-D or 3-D affine transforms."""
    op = "AffineGrid"
    dims = [int(v) for v in np.asarray(size).reshape(-1)]
    if len(dims) not in (4, 5):
        fail(op, f"size must be (N, C, H, W) or (N, C, D, H, W), got {dims}")
    nd = len(dims) - 2
    n = dims[0]
    if theta.shape != (n, nd, nd + 1):
        fail(op, f"theta must have shape ({n}, {nd}, {nd + 1}) for size {dims}, got {theta.shape}")
    spatial = dims[2:]
    # Homogeneous coordinates listed innermost axis first: (x, y[, z], 1).
    axes = [_base_coordinates(length, bool(align_corners)) for length in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")
    points = np.stack([*reversed(mesh), np.ones(spatial)], axis=-1)  # (*spatial, nd + 1)
    ct: Any = np.float64 if theta.dtype == np.float64 else np.float32
    flat = points.reshape(-1, nd + 1).astype(ct)
    grid = np.einsum("pk,nik->npi", flat, theta.astype(ct))
    return np.asarray(grid.reshape((n, *spatial, nd)).astype(theta.dtype))


def register(kernels: KernelRegistry) -> None:
    """Add GridSample and AffineGrid to ``kernels``."""
    kernels.add("GridSample", grid_sample_16, since=16)
    kernels.add("GridSample", grid_sample_20, since=(20, 22))
    kernels.add("AffineGrid", affine_grid, since=20)
