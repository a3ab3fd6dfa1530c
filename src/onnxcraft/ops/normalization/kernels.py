"""Normalization kernels: Batch, Instance, Layer, Group, RMS, LRN, Lp and mean-variance.

Statistics are computed in float32 (float64 for double inputs) whatever the input precision,
as the spec's ``stash_type`` asks, and the result is rounded once to the input's type.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.kernel_api import KernelContext, KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail, normalize_axis
from onnxcraft.ops.lowp import Precision, as_float, encode_like

__all__ = ["register"]


def _work_dtype(*arrays: np.ndarray | None) -> type[np.floating[Any]]:
    if any(a is not None and a.dtype == np.float64 for a in arrays):
        return np.float64
    return np.float32


def _channel_param(op: str, arg: str, value: np.ndarray, x: np.ndarray, spatial: int) -> Any:
    """A per-channel parameter (C,), or per-activation (C, D1..Dn), broadcast against x."""
    ct = _work_dtype(x)
    c = x.shape[1] if x.ndim > 1 else 1
    if value.shape == (c,):
        return value.astype(ct).reshape((1, c) + (1,) * (x.ndim - 2))
    if spatial == 0 and value.shape == x.shape[1:]:
        return value.astype(ct)[np.newaxis]
    fail(op, f"{arg} must have shape ({c},), got {value.shape}")


def _batch_norm_inference(
    op: str,
    x: np.ndarray,
    *,
    scale: np.ndarray,
    b: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    epsilon: float,
    spatial: int = 1,
) -> np.ndarray:
    if x.ndim < 2:
        fail(op, f"input X must have rank >= 2 (N, C, ...), got shape {x.shape}")
    ct = _work_dtype(x)
    s, bias, m, v = (
        _channel_param(op, name, value, x, spatial)
        for name, value in (("scale", scale), ("B", b), ("mean", mean), ("var", var))
    )
    inv = s / np.sqrt(v + ct(epsilon))
    y = np.multiply(x, inv, dtype=ct)  # one new array, then in place: no copies of x
    y += bias - m * inv
    return np.asarray(y.astype(x.dtype, copy=False))


def _batch_stats(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ct = _work_dtype(x)
    axes = (0, *range(2, x.ndim))
    xf = x.astype(ct)
    return xf.mean(axis=axes), xf.var(axis=axes)


def _batch_norm_training(
    op: str,
    x: np.ndarray,
    *,
    scale: np.ndarray,
    b: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    epsilon: float,
    momentum: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Normalize with the batch's statistics; also return updated running statistics."""
    current_mean, current_var = _batch_stats(x)
    y = _batch_norm_inference(
        op, x, scale=scale, b=b, mean=current_mean, var=current_var, epsilon=epsilon
    )
    ct = _work_dtype(x)
    running_mean = mean.astype(ct) * ct(momentum) + current_mean * ct(1 - momentum)
    running_var = var.astype(ct) * ct(momentum) + current_var * ct(1 - momentum)
    return (
        y,
        running_mean.astype(mean.dtype),
        running_var.astype(var.dtype),
        current_mean.astype(mean.dtype),
        current_var.astype(var.dtype),
    )


def batch_norm_15(
    x: np.ndarray,
    scale: np.ndarray,
    b: np.ndarray,
    input_mean: np.ndarray,
    input_var: np.ndarray,
    *,
    epsilon: float = 1e-5,
    momentum: float = 0.9,
    training_mode: int = 0,
) -> Any:
    """BatchNormalization-14/15: inference, or batch statistics plus running updates."""
    op = "BatchNormalization"
    # Y follows X's type, the running statistics follow mean's (they may differ from 15 on).
    xf, sf, bf, mf, vf = (as_float(a) for a in (x, scale, b, input_mean, input_var))
    if training_mode:
        y, r_mean, r_var, _, _ = _batch_norm_training(
            op, xf, scale=sf, b=bf, mean=mf, var=vf, epsilon=epsilon, momentum=momentum
        )
        return (
            encode_like(y, x),
            encode_like(r_mean, input_mean),
            encode_like(r_var, input_var),
        )
    y = _batch_norm_inference(op, xf, scale=sf, b=bf, mean=mf, var=vf, epsilon=epsilon)
    return encode_like(y, x)


def _batch_norm_legacy(
    ctx: KernelContext,
    x: np.ndarray,
    scale: np.ndarray,
    b: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    *,
    epsilon: float,
    momentum: float,
    spatial: int,
    is_test: int,
) -> Any:
    """BatchNormalization before 14: training is implied by asking for the extra outputs."""
    op = "BatchNormalization"
    xf, sf, bf, mf, vf = (as_float(a) for a in (x, scale, b, mean, var))
    # Naming any statistics output selects training mode (empty names do not count).
    if is_test or not any(ctx.outputs_requested[1:]):
        y = _batch_norm_inference(
            op, xf, scale=sf, b=bf, mean=mf, var=vf, epsilon=epsilon, spatial=spatial
        )
        y = encode_like(y, x)
        return (y,) + (None,) * (ctx.num_outputs - 1) if ctx.num_outputs > 1 else y
    outs = _batch_norm_training(
        op, xf, scale=sf, b=bf, mean=mf, var=vf, epsilon=epsilon, momentum=momentum
    )
    references = (x, mean, var, mean, var)
    return tuple(encode_like(o, r) for o, r in zip(outs, references, strict=True))[
        : ctx.num_outputs
    ]


def batch_norm_9(
    ctx: KernelContext,
    x: np.ndarray,
    scale: np.ndarray,
    b: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    *,
    epsilon: float = 1e-5,
    momentum: float = 0.9,
) -> Any:
    """BatchNormalization-9: per-channel statistics for any rank."""
    return _batch_norm_legacy(
        ctx, x, scale, b, mean, var, epsilon=epsilon, momentum=momentum, spatial=1, is_test=0
    )


def batch_norm_7(
    ctx: KernelContext,
    x: np.ndarray,
    scale: np.ndarray,
    b: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    *,
    epsilon: float = 1e-5,
    momentum: float = 0.9,
    spatial: int = 1,
) -> Any:
    """BatchNormalization-7: ``spatial=0`` gives per-activation parameters."""
    return _batch_norm_legacy(
        ctx, x, scale, b, mean, var, epsilon=epsilon, momentum=momentum, spatial=spatial, is_test=0
    )


def batch_norm_1(
    ctx: KernelContext,
    x: np.ndarray,
    scale: np.ndarray,
    b: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    *,
    epsilon: float = 1e-5,
    momentum: float = 0.9,
    spatial: int = 1,
    is_test: int = 0,
    consumed_inputs: Sequence[int] | None = None,
) -> Any:
    """BatchNormalization-1/6: as version 7, with an explicit ``is_test`` switch."""
    return _batch_norm_legacy(
        ctx,
        x,
        scale,
        b,
        mean,
        var,
        epsilon=epsilon,
        momentum=momentum,
        spatial=spatial,
        is_test=is_test,
    )


@compute_in_float32
def instance_norm(
    x: np.ndarray,
    scale: np.ndarray,
    b: np.ndarray,
    *,
    epsilon: float = 1e-5,
    consumed_inputs: Sequence[int] | None = None,
) -> np.ndarray:
    """InstanceNormalization: normalize every (n, c) over its spatial axes."""
    op = "InstanceNormalization"
    if x.ndim < 3:
        fail(op, f"input must have rank >= 3 (N, C, spatial...), got shape {x.shape}")
    ct = _work_dtype(x)
    xf = x.astype(ct)
    axes = tuple(range(2, x.ndim))
    mean = xf.mean(axis=axes, keepdims=True)
    var = xf.var(axis=axes, keepdims=True)
    s = _channel_param(op, "scale", scale, x, 1)
    bias = _channel_param(op, "B", b, x, 1)
    return np.asarray(((xf - mean) / np.sqrt(var + ct(epsilon)) * s + bias).astype(x.dtype))


# The element types stash_type may name (the U constraint of LayerNormalization).
_STASH_TYPES = (ElementType.FLOAT, ElementType.DOUBLE, ElementType.FLOAT16, ElementType.BFLOAT16)


def _stash_elem(op: str, stash_type: int) -> ElementType:
    if stash_type not in _STASH_TYPES:
        names = ", ".join(f"{t.name.lower()} ({int(t)})" for t in _STASH_TYPES)
        fail(op, f"stash_type must be one of {names}; got {stash_type}")
    return ElementType(stash_type)


def _stash_dtype(stash: ElementType, x: np.ndarray) -> type[np.floating[Any]]:
    # The body computes in stash_type; double inputs keep double precision (only the stored
    # statistics take the stash type), and float16/bfloat16 stashes are computed in float32.
    return np.float64 if stash == ElementType.DOUBLE or x.dtype == np.float64 else np.float32


def _in_type(values: np.ndarray, elem: ElementType) -> np.ndarray:
    """Float values encoded as element type ``elem`` (low-precision types included)."""
    return Precision(elem).encode(values)


def layer_norm(
    x: np.ndarray,
    scale: np.ndarray,
    b: np.ndarray | None = None,
    *,
    axis: int = -1,
    epsilon: float = 1e-5,
    stash_type: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LayerNormalization-17: normalize over axes ``axis..rank-1``; also Mean and InvStdDev."""
    op = "LayerNormalization"
    original = x
    # Y follows X's type; Mean and InvStdDev take stash_type's type.
    stash = _stash_elem(op, stash_type)
    x, scale, b = as_float(x), as_float(scale), as_float(b)
    first = normalize_axis(axis, max(x.ndim, 1), op=op)
    axes = tuple(range(first, x.ndim))
    ct = _stash_dtype(stash, x)
    try:
        shape = np.broadcast_shapes(x.shape, scale.shape, *(() if b is None else (b.shape,)))
    except ValueError:
        fail(
            op,
            f"Scale {scale.shape} and B {None if b is None else b.shape} must broadcast "
            f"to the normalized shape {x.shape[first:]}",
        )
    if shape != x.shape:
        fail(op, f"Scale/B shapes broadcast the output to {shape}, expected {x.shape}")
    xf = x.astype(ct, copy=False)  # read only
    mean = xf.mean(axis=axes, keepdims=True)
    # x - mean once, then in place: the operations of the formula, without temporaries.
    y = np.subtract(xf, mean)
    inv_std = 1 / np.sqrt(np.square(y).mean(axis=axes, keepdims=True) + ct(epsilon))
    np.multiply(y, inv_std, out=y)
    np.multiply(y, scale.astype(ct, copy=False), out=y)
    if b is not None:
        np.add(y, b.astype(ct, copy=False), out=y)
    return encode_like(y, original), _in_type(mean, stash), _in_type(inv_std, stash)


def rms_norm(
    x: np.ndarray,
    scale: np.ndarray,
    *,
    axis: int = -1,
    epsilon: float = 1e-5,
    stash_type: int = 1,
) -> np.ndarray:
    """RMSNormalization-23: divide by the root mean square over axes ``axis..rank-1``.

    X (type T) may differ from scale (type V); Y has scale's type, as the spec declares.
    """
    op = "RMSNormalization"
    out_reference = np.asarray(scale)
    x, scale = as_float(x), as_float(scale)
    ct = _stash_dtype(_stash_elem(op, stash_type), x)
    first = normalize_axis(axis, max(x.ndim, 1), op=op)
    axes = tuple(range(first, x.ndim))
    xf = x.astype(ct)
    rms = np.sqrt((xf * xf).mean(axis=axes, keepdims=True) + ct(epsilon))
    try:
        y = xf / rms * scale.astype(ct)
    except ValueError:
        fail(op, f"scale {scale.shape} must broadcast to the normalized shape {x.shape[first:]}")
    if y.shape != x.shape:
        fail(op, f"scale {scale.shape} broadcasts the output to {y.shape}, expected {x.shape}")
    return encode_like(y, out_reference)


def _group_norm(
    x: np.ndarray,
    *,
    scale: np.ndarray,
    bias: np.ndarray,
    epsilon: float,
    num_groups: int,
    per_channel: bool,
    ct: type[np.floating[Any]],
) -> np.ndarray:
    op = "GroupNormalization"
    if x.ndim < 2:
        fail(op, f"input X must have rank >= 2 (N, C, ...), got shape {x.shape}")
    n, c = x.shape[:2]
    if num_groups < 1 or c % num_groups:
        fail(op, f"num_groups={num_groups} must divide the {c} channels")
    expected = c if per_channel else num_groups
    if scale.shape != (expected,) or bias.shape != (expected,):
        fail(
            op, f"scale and bias must have shape ({expected},), got {scale.shape} and {bias.shape}"
        )
    per_group = (c // num_groups) * int(np.prod(x.shape[2:]))
    grouped = x.astype(ct).reshape(n, num_groups, per_group)
    mean = grouped.mean(axis=2, keepdims=True)
    var = grouped.var(axis=2, keepdims=True)
    normalized = ((grouped - mean) / np.sqrt(var + ct(epsilon))).reshape(x.shape)
    if not per_channel:
        scale = np.repeat(scale, c // num_groups)
        bias = np.repeat(bias, c // num_groups)
    shape = (1, c) + (1,) * (x.ndim - 2)
    y = normalized * scale.astype(ct).reshape(shape) + bias.astype(ct).reshape(shape)
    return np.asarray(y.astype(x.dtype))


@compute_in_float32
def group_norm_18(
    x: np.ndarray,
    scale: np.ndarray,
    bias: np.ndarray,
    *,
    epsilon: float = 1e-5,
    num_groups: int = 1,
) -> np.ndarray:
    """GroupNormalization-18: scale and bias have one entry per group."""
    return _group_norm(
        x,
        scale=scale,
        bias=bias,
        epsilon=epsilon,
        num_groups=num_groups,
        per_channel=False,
        ct=_work_dtype(x),
    )


@compute_in_float32
def group_norm_21(
    x: np.ndarray,
    scale: np.ndarray,
    bias: np.ndarray,
    *,
    epsilon: float = 1e-5,
    num_groups: int = 1,
    stash_type: int = 1,
) -> np.ndarray:
    """GroupNormalization-21: scale and bias have one entry per channel."""
    return _group_norm(
        x,
        scale=scale,
        bias=bias,
        epsilon=epsilon,
        num_groups=num_groups,
        per_channel=True,
        ct=_stash_dtype(_stash_elem("GroupNormalization", stash_type), x),
    )


@compute_in_float32
def lrn(
    x: np.ndarray, *, alpha: float = 1e-4, beta: float = 0.75, bias: float = 1.0, size: int = 1
) -> np.ndarray:
    """LRN: divide by a power of the sum of squares over neighbouring channels."""
    op = "LRN"
    if x.ndim < 3:
        fail(op, f"input X must have rank >= 3 (N, C, spatial...), got shape {x.shape}")
    if size < 1:
        fail(op, f"size must be positive, got {size}")
    ct = _work_dtype(x)
    squares = x.astype(ct) ** 2
    before = (size - 1) // 2
    after = size - 1 - before
    padded = np.pad(squares, [(0, 0), (before, after)] + [(0, 0)] * (x.ndim - 2))
    # A running sum over channels gives every window's sum with two subtractions.
    cumulative = np.concatenate([np.zeros_like(padded[:, :1]), np.cumsum(padded, axis=1)], axis=1)
    c = x.shape[1]
    window = cumulative[:, size : size + c] - cumulative[:, :c]
    return np.asarray((x / (ct(bias) + ct(alpha) / size * window) ** ct(beta)).astype(x.dtype))


@compute_in_float32
def lp_normalization(x: np.ndarray, *, axis: int = -1, p: int = 2) -> np.ndarray:
    """LpNormalization: divide by the L1 or L2 norm along ``axis``."""
    op = "LpNormalization"
    ax = normalize_axis(axis, max(x.ndim, 1), op=op)
    if p not in (1, 2):
        fail(op, f"p must be 1 or 2, got {p}")
    ct = _work_dtype(x)
    xf = x.astype(ct)
    if p == 1:
        norm = np.abs(xf).sum(axis=ax, keepdims=True)
    else:
        norm = np.sqrt((xf * xf).sum(axis=ax, keepdims=True))
    # A zero vector stays zero rather than becoming NaN.
    safe = np.where(norm == 0, ct(1), norm)
    return np.asarray((xf / safe).astype(x.dtype))


@compute_in_float32
def mean_variance_normalization(x: np.ndarray, *, axes: Sequence[int] | None = None) -> np.ndarray:
    """MeanVarianceNormalization: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9)."""
    op = "MeanVarianceNormalization"
    axes_t = tuple(axes) if axes is not None else (0, 2, 3)
    norm_axes = tuple(normalize_axis(int(a), x.ndim, op=op, arg="axes") for a in axes_t)
    ct = _work_dtype(x)
    xf = x.astype(ct)
    mean = xf.mean(axis=norm_axes, keepdims=True)
    variance = (xf * xf).mean(axis=norm_axes, keepdims=True) - mean * mean
    return np.asarray(((xf - mean) / (np.sqrt(variance) + ct(1e-9))).astype(x.dtype))


def register(kernels: KernelRegistry) -> None:
    """Add the normalization kernels to ``kernels``."""
    kernels.add("BatchNormalization", batch_norm_1, since=(1, 6), context=True)
    kernels.add("BatchNormalization", batch_norm_7, since=7, context=True)
    kernels.add("BatchNormalization", batch_norm_9, since=9, context=True)
    kernels.add("BatchNormalization", batch_norm_15, since=(14, 15))
    kernels.add("InstanceNormalization", instance_norm, since=(1, 6, 22))
    kernels.add("LayerNormalization", layer_norm, since=17)
    kernels.add("GroupNormalization", group_norm_18, since=18)
    kernels.add("GroupNormalization", group_norm_21, since=21)
    kernels.add("RMSNormalization", rms_norm, since=23)
    kernels.add("LRN", lrn, since=(1, 13))
    kernels.add("LpNormalization", lp_normalization, since=(1, 22))
    kernels.add("MeanVarianceNormalization", mean_variance_normalization, since=(9, 13))
