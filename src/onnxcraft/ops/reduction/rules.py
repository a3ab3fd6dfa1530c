"""Rules for reductions, ArgMax/ArgMin, TopK and CumSum.

ReduceProd and ReduceSum of a 1-D shape-like value known in part give its symbolic product or
sum where one exists (data propagation): ReduceProd([N, 1]) is N.
"""

from __future__ import annotations

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import normalize_axis, symbolic_product
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]

_REDUCTIONS = (
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSum",
    "ReduceSumSquare",
)
# The version from which `axes` is an input rather than an attribute.
_AXES_INPUT_SINCE = {"ReduceSum": 13}


def _reduce(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    keepdims = bool(ctx.attr("keepdims", 1))
    if ctx.op.since_version >= _AXES_INPUT_SINCE.get(ctx.op.op_type, 18):
        axes = ctx.int_values(1) if ctx.has_input(1) else []
        if ctx.has_input(1) and axes is None:
            rank = None if shape is None else (len(shape) if keepdims else None)
            return [Tensor(elem, None if rank is None else (None,) * rank)]
    else:
        attr = ctx.attr("axes")
        axes = [] if attr is None else [int(a) for a in attr]
    if shape is None:
        return [Tensor(elem, None)]
    if not axes:
        if ctx.attr("noop_with_empty_axes", 0):
            return [Tensor(elem, shape)]
        axes = list(range(len(shape)))
    norm = {normalize_axis(ctx, a, len(shape), "axes") for a in axes}
    dims: list[Dim] = []
    for i, d in enumerate(shape):
        if i in norm:
            if keepdims:
                dims.append(1)
        else:
            dims.append(d)
    if ctx.values_given and len(shape) == 1 and norm == {0} and ctx.has_symbolic_input():
        _reduce_value(ctx, bool(keepdims))
    return [Tensor(elem, tuple(dims))]


def _reduce_value(ctx: InferenceContext, keepdims: bool) -> None:
    """The product or sum of a 1-D shape-like value known in part."""
    entries = ctx.dims_value(0)
    if entries is None:
        return
    total: Dim = None
    if ctx.op.op_type == "ReduceProd":
        total = symbolic_product(entries)
    elif ctx.op.op_type == "ReduceSum":
        nonzero = [e for e in entries if e != 0]
        total = nonzero[0] if len(nonzero) == 1 else (0 if not nonzero else None)
    ctx.set_dims_value(0, [total], scalar=not keepdims, elem=ctx.elem(0))


def _arg(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is None:
        return [Tensor(ElementType.INT64, None)]
    axis = normalize_axis(ctx, int(ctx.attr("axis", 0)), len(shape))
    if ctx.attr("keepdims", 1):
        dims = shape[:axis] + (1,) + shape[axis + 1 :]
    else:
        dims = shape[:axis] + shape[axis + 1 :]
    return [Tensor(ElementType.INT64, dims)]


def _topk(ctx: InferenceContext) -> list[ValueType | None]:
    shape, elem = ctx.shape(0), ctx.elem(0)
    if shape is None:
        return [Tensor(elem, None), Tensor(ElementType.INT64, None)]
    axis = normalize_axis(ctx, int(ctx.attr("axis", -1)), len(shape))
    if ctx.op.since_version < 10:
        if ctx.attr("k") is None:
            raise ctx.fail("attribute 'k' is required (before opset 10 k is an attribute)")
        k: Dim = int(ctx.attr("k"))
    else:
        values = ctx.dims_value(1)
        k = values[0] if values is not None and len(values) == 1 else None
    dim = shape[axis]
    if isinstance(k, int) and k < 0:
        raise ctx.fail(f"k={k} must not be negative")
    if isinstance(k, int) and isinstance(dim, int) and k > dim:
        raise ctx.fail(f"k={k} is larger than dimension {axis} of the input ({dim})")
    dims = shape[:axis] + (k,) + shape[axis + 1 :]
    return [Tensor(elem, dims), Tensor(ElementType.INT64, dims)]


def _cum_sum(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ctx.elem(0), ctx.shape(0))]


def register(rules: RuleRegistry) -> None:
    for name in _REDUCTIONS:
        rules.add(name, _reduce, since=ALL_VERSIONS)
    rules.add("ArgMax", _arg, since=ALL_VERSIONS)
    rules.add("ArgMin", _arg, since=ALL_VERSIONS)
    rules.add("TopK", _topk, since=ALL_VERSIONS)
    rules.add("CumSum", _cum_sum, since=ALL_VERSIONS)
