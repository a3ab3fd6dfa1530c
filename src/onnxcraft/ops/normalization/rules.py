"""Rules for the normalizations: Batch (every version, training outputs), Instance, Layer
(Mean / InvStdDev in the stash type), Group, RMS, LRN, Lp and mean-variance normalization.

Every Y has the input's shape; the rules check the parameter shapes against the channels (or the
normalized axes) and type the statistics outputs.
"""

from __future__ import annotations

from collections.abc import Sequence

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import normalize_axis, tensor
from onnxcraft.ops.windows import (
    defined_attr,
    require_rank,
    show_shape,
    spatial_input,
    unify_dim,
)
from onnxcraft.types import Dim, Shape, Tensor, ValueType

__all__ = ["register"]

# stash_type names the precision of the statistics; these are the floating types it may name.
_FLOAT_TYPES = (
    ElementType.FLOAT,
    ElementType.DOUBLE,
    ElementType.FLOAT16,
    ElementType.BFLOAT16,
)


def _channels(shape: Shape) -> Dim:
    return None if shape is None or len(shape) < 2 else shape[1]


def _check_vector(ctx: InferenceContext, index: int, arg: str, size: Dim, what: str) -> Dim:
    """Input ``index`` must be 1-D with ``size`` entries; returns the unified size."""
    shape = require_rank(ctx, index, arg, exactly=1)
    if shape is None:
        return size
    got = shape[0]
    if type(got) is int and type(size) is int and got == size:
        return got  # the common case, without wording a message it will not need
    return unify_dim(ctx, got, size, f"{arg} must have one entry per {what}")


def _check_broadcasts_to(ctx: InferenceContext, index: int, arg: str, target: Shape) -> None:
    """Input ``index`` must broadcast (one-directionally) to ``target``."""
    shape = ctx.shape(index)
    if shape is None or target is None:
        return
    if len(shape) > len(target):
        raise ctx.fail(
            f"{arg} {show_shape(shape)} must broadcast to the normalized shape "
            f"{show_shape(target)}: it has more dimensions"
        )
    for want, got in zip(target[len(target) - len(shape) :], shape):
        if isinstance(want, int) and isinstance(got, int) and got not in (1, want):
            raise ctx.fail(
                f"{arg} {show_shape(shape)} must broadcast to the normalized shape "
                f"{show_shape(target)}"
            )


# -- BatchNormalization -------------------------------------------------------------------------


def _batch_norm(ctx: InferenceContext) -> list[ValueType | None]:
    x_shape = require_rank(ctx, 0, "X", at_least=2)
    per_activation = not defined_attr(ctx, "spatial", 1)
    if per_activation:
        # Versions 1-7 with spatial=0: the parameters have X's shape without the batch axis.
        param_shape = None if x_shape is None else x_shape[1:]
        for index, arg in enumerate(("scale", "B", "mean", "var"), start=1):
            _check_same_shape(ctx, index, arg, param_shape)
    else:
        c = _channels(x_shape)
        types = ctx.input_types
        if not (type(c) is int and len(types) == 5 and _vectors_of(types, c)):
            # (the common case, every parameter a vector of C entries, needs no checking)
            for index, arg in enumerate(("scale", "B", "mean", "var"), start=1):
                c = _check_vector(ctx, index, arg, c, "channel of X")
        param_shape = (c,)
    # X's shape is a valid input's: the type needs no checking again
    outputs: list[ValueType | None] = [tensor(ctx.elem(0), x_shape)]
    # Running (and, before version 14, saved) statistics follow the type of mean and var.
    for i in range(1, ctx.num_outputs):
        source = 3 if i % 2 else 4
        outputs.append(Tensor(ctx.elem(source), param_shape))
    return outputs


def _vectors_of(types: Sequence[ValueType | None], size: int) -> bool:
    """Whether the four parameters are tensor types of shape ``(size,)``. Parameters of one
    element type and size mostly share one type object (the graph's initializers do): then
    one is checked."""
    scale = types[1]
    if types[2] is scale and types[3] is scale and types[4] is scale:
        return _vector_of(scale, size)
    return all(_vector_of(t, size) for t in types[1:])


def _vector_of(t: ValueType | None, size: int) -> bool:
    """Whether ``t`` is a tensor type of shape ``(size,)``."""
    return type(t) is Tensor and t.shape is not None and len(t.shape) == 1 and t.shape[0] == size


def _check_same_shape(ctx: InferenceContext, index: int, arg: str, expected: Shape) -> None:
    shape = ctx.shape(index)
    if shape is None or expected is None:
        return
    if len(shape) != len(expected):
        raise ctx.fail(
            f"{arg} must have shape {show_shape(expected)} (spatial=0), got {show_shape(shape)}"
        )
    for a, b in zip(shape, expected):
        unify_dim(ctx, a, b, f"{arg} must have shape {show_shape(expected)} (spatial=0)")


# -- per-channel and per-group normalizations ---------------------------------------------------


def _instance_norm(ctx: InferenceContext) -> list[ValueType | None]:
    shape = spatial_input(ctx, 0, "input")
    c = _channels(shape)
    for index, arg in ((1, "scale"), (2, "B")):
        c = _check_vector(ctx, index, arg, c, "channel of the input")
    return [Tensor(ctx.elem(0), shape)]


def _group_norm(ctx: InferenceContext) -> list[ValueType | None]:
    shape = require_rank(ctx, 0, "X", at_least=2)
    groups_attr = ctx.attr("num_groups")
    if groups_attr is None:
        raise ctx.fail("attribute num_groups is required")
    groups = int(groups_attr)
    c = _channels(shape)
    if groups < 1 or (isinstance(c, int) and c % groups):
        raise ctx.fail(f"num_groups={groups} must be positive and divide the {c} channels of X")
    # Version 18 scales per group; version 21 per channel (and has a stash_type).
    per_channel = ctx.op.since_version >= 21
    if per_channel:
        _stash_type(ctx)
    size: Dim = c if per_channel else groups
    what = "channel of X" if per_channel else f"group (num_groups={groups})"
    for index, arg in ((1, "scale"), (2, "bias")):
        size = _check_vector(ctx, index, arg, size, what)
    return [Tensor(ctx.elem(0), shape)]


# -- normalizations over trailing axes ----------------------------------------------------------


def _stash_type(ctx: InferenceContext) -> ElementType:
    """The statistics' element type; where they are outputs, the ones their constraint allows."""
    value = int(ctx.attr("stash_type", 1))
    allowed: frozenset[ElementType] | tuple[ElementType, ...] = _FLOAT_TYPES
    if len(ctx.op.outputs) > 1 and ctx.op.outputs[1].tensor_elems:
        allowed = ctx.op.outputs[1].tensor_elems
    if value not in {int(t) for t in allowed}:
        names = sorted(f"{t.name.lower()} ({int(t)})" for t in allowed)
        raise ctx.fail(f"stash_type must be one of {names}, got {value}")
    return ElementType(value)


def _trailing_axes(ctx: InferenceContext, shape: Shape) -> int | None:
    """The first normalized axis (``axis`` attribute, normalized), None when rank unknown."""
    if shape is None:
        return None
    return normalize_axis(ctx, int(ctx.attr("axis", -1)), len(shape))


def _layer_norm(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    first = _trailing_axes(ctx, shape)
    stash = _stash_type(ctx)
    normalized = None if shape is None or first is None else shape[first:]
    _check_broadcasts_to(ctx, 1, "Scale", normalized)
    if ctx.has_input(2):
        _check_broadcasts_to(ctx, 2, "B", normalized)
    outputs: list[ValueType | None] = [Tensor(ctx.elem(0), shape)]
    stats: Shape = None
    if shape is not None and first is not None:
        stats = (*shape[:first], *(1,) * (len(shape) - first))
    outputs += [Tensor(stash, stats)] * (ctx.num_outputs - 1)
    return outputs


def _rms_norm(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    first = _trailing_axes(ctx, shape)
    _stash_type(ctx)
    normalized = None if shape is None or first is None else shape[first:]
    _check_broadcasts_to(ctx, 1, "scale", normalized)
    # Y has the type of scale (type parameter V), not necessarily X's.
    return [Tensor(ctx.elem(1), shape)]


def _lp_norm(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    _trailing_axes(ctx, shape)
    p = int(ctx.attr("p", 2))
    if p not in (1, 2):
        raise ctx.fail(f"p must be 1 or 2, got {p}")
    return [Tensor(ctx.elem(0), shape)]


def _lrn(ctx: InferenceContext) -> list[ValueType | None]:
    shape = spatial_input(ctx)
    size = ctx.attr("size")
    if size is None or int(size) < 1:
        raise ctx.fail(f"attribute size must be a positive int, got {size}")
    return [Tensor(ctx.elem(0), shape)]


def _mean_variance_norm(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is not None:
        for axis in ctx.attr("axes", (0, 2, 3)):
            normalize_axis(ctx, int(axis), len(shape), "axes")
    return [Tensor(ctx.elem(0), shape)]


def register(rules: RuleRegistry) -> None:
    rules.add("BatchNormalization", _batch_norm, since=ALL_VERSIONS)
    rules.add("InstanceNormalization", _instance_norm, since=ALL_VERSIONS)
    rules.add("LayerNormalization", _layer_norm, since=ALL_VERSIONS)
    rules.add("GroupNormalization", _group_norm, since=ALL_VERSIONS)
    rules.add("RMSNormalization", _rms_norm, since=ALL_VERSIONS)
    rules.add("LpNormalization", _lp_norm, since=ALL_VERSIONS)
    rules.add("LRN", _lrn, since=ALL_VERSIONS)
    rules.add("MeanVarianceNormalization", _mean_variance_norm, since=ALL_VERSIONS)
