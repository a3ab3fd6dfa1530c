"""Rules for Gather and the other indexing operators.

Gather also picks entries of a 1-D shape-like value known in part (data propagation).
"""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.indexing.shapes import gather_nd_shape
from onnxcraft.ops.infer_api import ALL_VERSIONS, VALUE_LIMIT, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import normalize_axis
from onnxcraft.types import Tensor, ValueType

__all__ = ["register"]


def _gather(ctx: InferenceContext) -> list[ValueType | None]:
    data, indices = ctx.shape(0), ctx.shape(1)
    elem = ctx.elem(0)
    if data is None or indices is None:
        return [Tensor(elem, None)]
    if not data:
        raise ctx.fail("data must have rank >= 1, got a scalar")
    axis = normalize_axis(ctx, int(ctx.attr("axis", 0)), len(data))
    if ctx.values_given and ctx.is_integer(0):
        _gather_value(ctx, axis)  # shape-like values; others are folded by the engine
    return [Tensor(elem, data[:axis] + indices + data[axis + 1 :])]


def _gather_value(ctx: InferenceContext, axis: int) -> None:
    index = ctx.value(1)
    if index is None or index.size > VALUE_LIMIT or index.dtype.kind not in "iu":
        return
    value = ctx.value(0)
    if value is not None and value.size > VALUE_LIMIT:
        return
    dim = value.shape[axis] if value is not None else None
    entries = ctx.dims_value(0) if value is None else None
    if entries is not None:
        dim = len(entries)
    if dim is None:
        return
    if not np.all((index >= -dim) & (index < dim)):
        raise ctx.fail(f"indices {index.tolist()} are out of range for dimension {dim}")
    if value is not None:
        ctx.set_value(0, np.take(value, index, axis=axis))
    elif entries is not None and index.ndim <= 1:
        picked = [entries[int(i)] for i in index.reshape(-1).tolist()]
        ctx.set_dims_value(0, picked, scalar=index.ndim == 0, elem=ctx.elem(0))


def _gather_elements(ctx: InferenceContext) -> list[ValueType | None]:
    data, indices = ctx.shape(0), ctx.shape(1)
    if data is not None and indices is not None and len(data) != len(indices):
        raise ctx.fail(
            f"indices (rank {len(indices)}) must have the rank of data (rank {len(data)})"
        )
    return [Tensor(ctx.elem(0), indices)]


def _scatter(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ctx.elem(0), ctx.shape(0))]


def _gather_nd(ctx: InferenceContext) -> list[ValueType | None]:
    data, indices = ctx.shape(0), ctx.shape(1)
    batch = int(ctx.attr("batch_dims", 0))
    if data is None or indices is None or not indices or not isinstance(indices[-1], int):
        return [Tensor(ctx.elem(0), None)]
    depth = indices[-1]
    if batch + depth > len(data):
        raise ctx.fail(
            f"indices.shape[-1] = {depth} (with batch_dims={batch}) exceeds the rank of data "
            f"({len(data)})"
        )
    return [Tensor(ctx.elem(0), gather_nd_shape(data, indices, depth, batch))]


def register(rules: RuleRegistry) -> None:
    rules.add("Gather", _gather, since=ALL_VERSIONS)
    rules.add("GatherElements", _gather_elements, since=ALL_VERSIONS)
    rules.add("GatherND", _gather_nd, since=ALL_VERSIONS)
    for name in ("Scatter", "ScatterElements", "ScatterND"):
        rules.add(name, _scatter, since=ALL_VERSIONS)
