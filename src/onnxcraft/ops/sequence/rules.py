"""Rules for the sequence and optional operators."""

from __future__ import annotations

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.control.rules import merge_types
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import element_type_attr, normalize_axis
from onnxcraft.types import Dim, Optional, Sequence, Tensor, ValueType

__all__ = ["register"]


def _elem(t: ValueType | None) -> ValueType | None:
    return t.elem if isinstance(t, Sequence) else None


def _construct(ctx: InferenceContext) -> list[ValueType | None]:
    merged = ctx.input_types[0] if ctx.input_types else None
    for t in ctx.input_types[1:]:
        merged = merge_types(merged, t)
    return [Sequence(merged)]


def _empty(ctx: InferenceContext) -> list[ValueType | None]:
    dtype = element_type_attr(ctx, "dtype")
    return [Sequence(Tensor(ElementType.FLOAT if dtype is None else dtype))]


def _at(ctx: InferenceContext) -> list[ValueType | None]:
    return [_elem(ctx.input_types[0])]


def _same_sequence(ctx: InferenceContext) -> list[ValueType | None]:
    return [ctx.input_types[0]]


def _insert(ctx: InferenceContext) -> list[ValueType | None]:
    seq = ctx.input_types[0]
    if not isinstance(seq, Sequence):
        return [seq]
    return [Sequence(merge_types(seq.elem, ctx.input_types[1]))]


def _length(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ElementType.INT64, ())]


def _split_to_sequence(ctx: InferenceContext) -> list[ValueType | None]:
    shape, elem = ctx.shape(0), ctx.elem(0)
    if shape is None:
        return [Sequence(Tensor(elem, None))]
    axis = normalize_axis(ctx, int(ctx.attr("axis", 0)), len(shape))
    if not ctx.has_input(1) and not ctx.attr("keepdims", 1):
        return [Sequence(Tensor(elem, shape[:axis] + shape[axis + 1 :]))]
    split = ctx.int_values(1) if ctx.has_input(1) else [1]
    scalar = not ctx.has_input(1) or ctx.rank(1) == 0
    dim = shape[axis]
    if split is not None and scalar and len(split) == 1:
        if split[0] <= 0:
            raise ctx.fail(f"input 'split' (a chunk size) must be positive, got {split[0]}")
        size: Dim = split[0]
        if not (isinstance(dim, int) and dim % split[0] == 0):
            size = None  # the last chunk is shorter when the size does not divide the dim
    elif split is not None:
        if any(s < 0 for s in split):
            raise ctx.fail(f"input 'split' {split} must not hold negative lengths")
        if isinstance(dim, int) and sum(split) != dim:
            raise ctx.fail(
                f"input 'split' {split} sums to {sum(split)}, not to the split axis' dim {dim}"
            )
        size = split[0] if split and len(set(split)) == 1 else None
    else:
        size = None
    return [Sequence(Tensor(elem, shape[:axis] + (size,) + shape[axis + 1 :]))]


def _concat_from_sequence(ctx: InferenceContext) -> list[ValueType | None]:
    inner = _elem(ctx.input_types[0])
    if not isinstance(inner, Tensor) or inner.shape is None:
        return [Tensor(None if not isinstance(inner, Tensor) else inner.elem_type, None)]
    shape = inner.shape
    new_axis = bool(ctx.attr("new_axis", 0))
    rank = len(shape) + (1 if new_axis else 0)
    axis = normalize_axis(ctx, int(ctx.attr("axis")), rank)
    if new_axis:
        return [Tensor(inner.elem_type, shape[:axis] + (None,) + shape[axis:])]
    return [Tensor(inner.elem_type, shape[:axis] + (None,) + shape[axis + 1 :])]


def _optional(ctx: InferenceContext) -> list[ValueType | None]:
    if ctx.has_input(0):
        return [Optional(ctx.input_types[0])]
    declared = ctx.attr("type")
    if declared is None:
        raise ctx.fail("without an input, the attribute 'type' must give the element type")
    return [Optional(declared)]


def _optional_get_element(ctx: InferenceContext) -> list[ValueType | None]:
    t = ctx.input_types[0] if ctx.input_types else None
    if isinstance(t, Optional):
        return [t.elem]
    if t is not None and ctx.op.since_version < 18:
        raise ctx.fail(f"input must be an optional, got {t}")
    return [t]  # from version 18 a tensor or sequence passes through


def _optional_has_element(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ElementType.BOOL, ())]


def register(rules: RuleRegistry) -> None:
    rules.add("SequenceConstruct", _construct, since=ALL_VERSIONS)
    rules.add("SequenceEmpty", _empty, since=ALL_VERSIONS)
    rules.add("SequenceAt", _at, since=ALL_VERSIONS)
    rules.add("SequenceErase", _same_sequence, since=ALL_VERSIONS)
    rules.add("SequenceInsert", _insert, since=ALL_VERSIONS)
    rules.add("SequenceLength", _length, since=ALL_VERSIONS)
    rules.add("SplitToSequence", _split_to_sequence, since=ALL_VERSIONS)
    rules.add("ConcatFromSequence", _concat_from_sequence, since=ALL_VERSIONS)
    rules.add("Optional", _optional, since=ALL_VERSIONS)
    rules.add("OptionalGetElement", _optional_get_element, since=ALL_VERSIONS)
    rules.add("OptionalHasElement", _optional_has_element, since=ALL_VERSIONS)
