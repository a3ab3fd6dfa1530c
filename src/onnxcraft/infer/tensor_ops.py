"""Rules for Trilu, CumProd, ReverseSequence, BitCast, Einsum, EyeLike, OneHot, GatherND-like
shape bookkeeping of the tensor_ops family."""

from __future__ import annotations

from onnxcraft.core.types import Dim, Tensor, ValueType
from onnxcraft.dtypes import ElementType
from onnxcraft.infer.common import normalize_axis
from onnxcraft.infer.registry import ALL_VERSIONS, InferenceContext, RuleRegistry

__all__ = ["register"]


def _same(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ctx.elem(0), ctx.shape(0))]


def _bit_cast(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ElementType(int(ctx.attr("to"))), ctx.shape(0))]


def _eye_like(ctx: InferenceContext) -> list[ValueType | None]:
    dtype = ctx.attr("dtype")
    return [Tensor(ctx.elem(0) if dtype is None else ElementType(int(dtype)), ctx.shape(0))]


def _one_hot(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    depth = ctx.int_values(1)
    if shape is None:
        return [Tensor(ctx.elem(2), None)]
    rank = len(shape) + 1
    axis = normalize_axis(ctx, int(ctx.attr("axis", -1)), rank)
    size: Dim = depth[0] if depth else None
    return [Tensor(ctx.elem(2), (*shape[:axis], size, *shape[axis:]))]


def _einsum(ctx: InferenceContext) -> list[ValueType | None]:
    equation = str(ctx.attr("equation", "")).replace(" ", "")
    shapes = [ctx.shape(i) for i in range(len(ctx.input_types))]
    elem = ctx.elem(0)
    if "->" not in equation or "..." in equation or any(s is None for s in shapes):
        return [Tensor(elem, None)]
    terms, output = equation.split("->")
    sizes: dict[str, Dim] = {}
    for term, shape in zip(terms.split(","), shapes):
        assert shape is not None
        if len(term) != len(shape):
            raise ctx.fail(f"term {term!r} has {len(term)} letters but the input has rank {len(shape)}")
        for letter, dim in zip(term, shape):
            known = sizes.get(letter)
            if known is None or known == 1:
                sizes[letter] = dim
    return [Tensor(elem, tuple(sizes.get(letter) for letter in output))]


def register(rules: RuleRegistry) -> None:
    for name in ("Trilu", "CumProd", "CumSum", "ReverseSequence"):
        rules.add(name, _same, since=ALL_VERSIONS)
    rules.add("BitCast", _bit_cast, since=ALL_VERSIONS)
    rules.add("EyeLike", _eye_like, since=ALL_VERSIONS)
    rules.add("OneHot", _one_hot, since=ALL_VERSIONS)
    rules.add("Einsum", _einsum, since=ALL_VERSIONS)
