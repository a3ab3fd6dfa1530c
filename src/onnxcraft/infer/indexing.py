"""Rules for Gather and the other indexing operators."""

from __future__ import annotations

import numpy as np

from onnxcraft.core.types import Tensor, ValueType
from onnxcraft.infer.common import normalize_axis
from onnxcraft.infer.registry import ALL_VERSIONS, InferenceContext, RuleRegistry

__all__ = ["register"]


def _gather(ctx: InferenceContext) -> list[ValueType | None]:
    data, indices = ctx.shape(0), ctx.shape(1)
    elem = ctx.elem(0)
    if data is None or indices is None:
        return [Tensor(elem, None)]
    axis = normalize_axis(ctx, int(ctx.attr("axis", 0)), len(data))
    value, index = ctx.value(0), ctx.value(1)
    if value is not None and index is not None and value.size <= 64 and index.size <= 64:
        dim = value.shape[axis]
        if np.all((index >= -dim) & (index < dim)):
            ctx.set_value(0, np.take(value, index, axis=axis))
        else:
            raise ctx.fail(f"indices {index.tolist()} are out of range for dimension {dim}")
    return [Tensor(elem, data[:axis] + indices + data[axis + 1 :])]


def _gather_elements(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ctx.elem(0), ctx.shape(1))]


def _scatter(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ctx.elem(0), ctx.shape(0))]


def _gather_nd(ctx: InferenceContext) -> list[ValueType | None]:
    data, indices = ctx.shape(0), ctx.shape(1)
    batch = int(ctx.attr("batch_dims", 0))
    if data is None or indices is None or not isinstance(indices[-1], int):
        return [Tensor(ctx.elem(0), None)]
    depth = indices[-1]
    return [Tensor(ctx.elem(0), (*indices[:-1], *data[batch + depth :]))]


def register(rules: RuleRegistry) -> None:
    rules.add("Gather", _gather, since=ALL_VERSIONS)
    rules.add("GatherElements", _gather_elements, since=ALL_VERSIONS)
    rules.add("GatherND", _gather_nd, since=ALL_VERSIONS)
    for name in ("Scatter", "ScatterElements", "ScatterND", "TensorScatter"):
        rules.add(name, _scatter, since=ALL_VERSIONS)
