"""Rules for Resize (every version: scales or sizes, ``axes``, ``keep_aspect_ratio_policy``) and
Upsample.

Output sizes follow the standard's reference: ``floor(size * scale)`` from scales, the requested
size from ``sizes`` ("stretch"; a symbolic size propagates), or one common scale applied to every
resized axis and rounded half up ("not_larger" / "not_smaller"). The arithmetic on known sizes is
:mod:`onnxcraft.ops.resize.shapes`, which the kernels use too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import normalize_axis
from onnxcraft.ops.resize.shapes import kept_aspect_sizes, scaled_size
from onnxcraft.ops.windows import defined_attr, require_rank
from onnxcraft.types import Dim, Shape, Tensor, ValueType

__all__ = ["register"]

ASPECT_POLICIES = ("stretch", "not_larger", "not_smaller")


@dataclass(frozen=True)
class _Factors:
    """What the scales or the sizes input tells.

    ``given``: the node gives the input and it is not known to be empty (an empty tensor means
    "not given" in the standard's terms). ``scales`` / ``sizes``: its known values; a size may
    also be a symbol or unknown.
    """

    given: bool
    empty: bool = False
    scales: tuple[float, ...] | None = None
    sizes: tuple[Dim, ...] | None = None
    length: int | None = None


def _read_input(ctx: InferenceContext, index: int | None, arg: str, *, sizes: bool) -> _Factors:
    if index is None or not ctx.has_input(index):
        return _Factors(False)
    shape = require_rank(ctx, index, arg, exactly=1)
    dims = ctx.dims_value(index) if sizes else None
    value = None if sizes else ctx.value(index)
    floats = None if value is None else tuple(float(v) for v in value.reshape(-1))
    known = dims if sizes else floats
    length = len(known) if known is not None else None
    if length is None and shape is not None and isinstance(shape[0], int):
        length = shape[0]
    if length == 0:
        return _Factors(False, empty=True)
    return _Factors(True, scales=floats, sizes=dims, length=length)


def _scaled_dim(size: Dim, scale: float) -> Dim:
    if isinstance(size, int):
        return scaled_size(size, scale)
    return size if scale == 1.0 else None


def _resize_axes(ctx: InferenceContext, rank: int | None, count: int | None) -> list[int] | None:
    """The axes scales/sizes refer to (every axis unless the ``axes`` attribute says)."""
    attr = defined_attr(ctx, "axes", None)
    if attr:
        if rank is None:
            return None
        axes = [normalize_axis(ctx, int(a), rank, "axes") for a in attr]
        if len(set(axes)) != len(axes):
            raise ctx.fail(f"axes must not repeat an axis, got {list(attr)}")
        return axes
    if rank is None:
        rank = count
    return None if rank is None else list(range(rank))


def _dims_from_scales(
    ctx: InferenceContext, shape: Sequence[Dim], axes: list[int], scales: Sequence[float]
) -> tuple[Dim, ...]:
    if len(scales) != len(axes):
        raise ctx.fail(f"scales must have {len(axes)} entries (one per axis), got {list(scales)}")
    if any(s <= 0 for s in scales):
        raise ctx.fail(f"scales must be positive, got {list(scales)}")
    out = list(shape)
    for axis, scale in zip(axes, scales):
        out[axis] = _scaled_dim(shape[axis], scale)
    return tuple(out)


def _dims_from_sizes(
    ctx: InferenceContext, shape: Sequence[Dim], axes: list[int], sizes: Sequence[Dim]
) -> tuple[Dim, ...]:
    if len(sizes) != len(axes):
        raise ctx.fail(f"sizes must have {len(axes)} entries (one per axis), got {list(sizes)}")
    if any(isinstance(v, int) and v < 0 for v in sizes):
        raise ctx.fail(f"sizes must be non-negative, got {list(sizes)}")
    out = list(shape)
    policy = str(defined_attr(ctx, "keep_aspect_ratio_policy", "stretch"))
    if policy == "stretch":
        for axis, size in zip(axes, sizes):
            out[axis] = size
        return tuple(out)
    wanted = [v for v in sizes if isinstance(v, int)]
    inputs = [n for n in (shape[axis] for axis in axes) if isinstance(n, int)]
    if len(wanted) != len(axes) or len(inputs) != len(axes):
        # One common scale for every resized axis needs every size and every input size.
        return tuple(None if axis in axes else d for axis, d in enumerate(shape))
    _, kept = kept_aspect_sizes(inputs, wanted, policy)
    for axis, n in zip(axes, kept):
        out[axis] = n
    return tuple(out)


def _resized_shape(ctx: InferenceContext, shape: Shape, scales: _Factors, sizes: _Factors) -> Shape:
    lengths = {f.length for f in (scales, sizes) if f.given and f.length is not None}
    count = lengths.pop() if len(lengths) == 1 else None
    axes = _resize_axes(ctx, None if shape is None else len(shape), count)
    if axes is None:
        return None
    base: Sequence[Dim] = shape if shape is not None else (None,) * len(axes)
    if scales.scales is not None and not sizes.given:
        return _dims_from_scales(ctx, base, axes, scales.scales)
    if sizes.sizes is not None and not scales.given:
        return _dims_from_sizes(ctx, base, axes, sizes.sizes)
    # Which input is used (or its values) is unknown: only the other axes keep their size.
    return tuple(None if axis in axes else d for axis, d in enumerate(base))


def _resize(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    legacy = ctx.op.since_version < 11  # Resize-10: (X, scales)
    scales = _read_input(ctx, 1 if legacy else 2, "scales", sizes=False)
    sizes = _read_input(ctx, None if legacy else 3, "sizes", sizes=True)
    policy = str(defined_attr(ctx, "keep_aspect_ratio_policy", "stretch"))
    if policy not in ASPECT_POLICIES:
        raise ctx.fail(f"keep_aspect_ratio_policy must be one of {ASPECT_POLICIES}, got {policy!r}")
    if scales.scales is not None and sizes.sizes is not None:
        raise ctx.fail("only one of scales and sizes may be given (the other must be empty)")
    if scales.empty and sizes.empty:
        raise ctx.fail("one of scales and sizes must be given: both are empty")
    return [Tensor(elem, _resized_shape(ctx, shape, scales, sizes))]


def _upsample_scales(ctx: InferenceContext, rank: int | None) -> tuple[float, ...] | None:
    version = ctx.op.since_version
    if version >= 9:
        return _read_input(ctx, 1, "scales", sizes=False).scales
    if version >= 7:
        attr = ctx.attr("scales")
        if not attr:
            raise ctx.fail("attribute scales is required")
        return tuple(float(s) for s in attr)
    if rank is not None and rank != 4:
        raise ctx.fail(f"version 1 takes a 4-D input (N, C, H, W), got rank {rank}")
    height, width = ctx.attr("height_scale"), ctx.attr("width_scale")
    if height is None or width is None:
        raise ctx.fail("attributes height_scale and width_scale are required")
    return (1.0, 1.0, float(height), float(width))


def _upsample(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    rank = None if shape is None else len(shape)
    scales = _upsample_scales(ctx, rank)
    if scales is None:
        return [Tensor(elem, None if rank is None else (None,) * rank)]
    axes = list(range(len(scales) if rank is None else rank))
    base: Sequence[Dim] = shape if shape is not None else (None,) * len(axes)
    return [Tensor(elem, _dims_from_scales(ctx, base, axes, scales))]


def register(rules: RuleRegistry) -> None:
    rules.add("Resize", _resize, since=ALL_VERSIONS)
    rules.add("Upsample", _upsample, since=ALL_VERSIONS)
