"""DeformConv: convolution whose taps sample the input at learned fractional offsets.

Each kernel tap is sampled for every output position at once by N-linear interpolation
(looping over taps and over the 2**n interpolation corners only); the sampled columns then go
through the same grouped matrix multiply as Conv.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from onnxcraft.ops.conv.kernels import check_conv_operands, conv_geometry
from onnxcraft.ops.deform_conv.shapes import mask_channels, offset_channels
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail

__all__ = ["register"]


def _sample(
    images: np.ndarray, positions: list[np.ndarray], batch: np.ndarray, group: np.ndarray
) -> np.ndarray:
    """N-linear samples of ``images`` (N, G, Cg, *in) at positions (N, G, *out) per axis.

    Corners outside the image contribute zero. Returns (N, G, *out, Cg).
    """
    spatial = images.shape[3:]
    lows = [np.floor(p).astype(np.int64) for p in positions]
    fracs = [p - lo for p, lo in zip(positions, lows, strict=True)]
    total = np.zeros((*positions[0].shape, images.shape[2]), images.dtype)
    for corner in itertools.product((0, 1), repeat=len(spatial)):
        weight: Any = 1.0
        inside: Any = True
        index = []
        for axis, up in enumerate(corner):
            idx = lows[axis] + up
            weight = weight * (fracs[axis] if up else 1 - fracs[axis])
            inside = inside & (idx >= 0) & (idx < spatial[axis])
            index.append(np.clip(idx, 0, spatial[axis] - 1))
        where = (batch, group, slice(None), *index)
        values = images[where]
        total += values * np.where(inside, weight, 0.0)[..., np.newaxis].astype(images.dtype)
    return total


@compute_in_float32
def deform_conv(
    x: np.ndarray,
    w: np.ndarray,
    offset: np.ndarray,
    b: np.ndarray | None = None,
    mask: np.ndarray | None = None,
    *,
    dilations: Sequence[int] | None = None,
    group: int = 1,
    kernel_shape: Sequence[int] | None = None,
    offset_group: int = 1,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """DeformConv-19/22: N-D deformable convolution with optional modulation mask."""
    op = "DeformConv"
    check_conv_operands(op, x, w, group)
    geom = conv_geometry(
        op,
        x,
        w,
        kernel_shape=kernel_shape,
        strides=strides,
        dilations=dilations,
        pads=pads,
        auto_pad="NOTSET",
    )
    n, c = x.shape[:2]
    nd = x.ndim - 2
    taps = int(np.prod(geom.kernel))
    out = geom.out_shape
    if offset_group < 1 or c % offset_group:
        fail(op, f"offset_group={offset_group} must divide the {c} input channels")
    want_offset = (n, offset_channels(offset_group, taps, nd), *out)
    if offset.shape != want_offset:
        fail(op, f"offset must have shape {want_offset}, got {offset.shape}")
    want_mask = (n, mask_channels(offset_group, taps), *out)
    if mask is not None and mask.shape != want_mask:
        fail(op, f"mask must have shape {want_mask}, got {mask.shape}")
    ct: Any = np.float64 if x.dtype == np.float64 else np.float32
    images = x.astype(ct).reshape(n, offset_group, c // offset_group, *x.shape[2:])
    shifts = offset.astype(ct).reshape(n, offset_group, taps, nd, *out)
    scales = None if mask is None else mask.astype(ct).reshape(n, offset_group, taps, *out)
    grids = np.meshgrid(*[np.arange(o) for o in out], indexing="ij")
    batch = np.arange(n).reshape((n, 1) + (1,) * nd)
    groups = np.arange(offset_group).reshape((1, offset_group) + (1,) * nd)
    cols = np.empty((n, offset_group, c // offset_group, taps, *out), ct)
    for k, tap in enumerate(np.ndindex(*geom.kernel)):
        positions = [
            (grids[a] * geom.strides[a] - geom.pads_begin[a] + tap[a] * geom.dilations[a])
            + shifts[:, :, k, a]
            for a in range(nd)
        ]
        sampled = np.moveaxis(_sample(images, positions, batch, groups), -1, 2)
        if scales is not None:
            sampled = sampled * scales[:, :, k][:, :, np.newaxis]
        cols[:, :, :, k] = sampled
    m = w.shape[0]
    positions_count = int(np.prod(out))
    flat = cols.reshape(n, group, (c // group) * taps, positions_count)
    y = np.matmul(w.astype(ct).reshape(group, m // group, -1), flat).reshape(n, m, *out)
    if b is not None:
        if b.shape != (m,):
            fail(op, f"bias B must have shape ({m},), got {b.shape}")
        y = y + b.astype(ct).reshape((1, m) + (1,) * nd)
    return np.asarray(y.astype(x.dtype))


def register(kernels: KernelRegistry) -> None:
    """Add DeformConv to ``kernels``."""
    kernels.add("DeformConv", deform_conv, since=(19, 22))
