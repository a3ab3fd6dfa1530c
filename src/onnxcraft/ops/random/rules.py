"""Rules of the random family: RandomNormal, RandomUniform, their ``*Like`` forms, Bernoulli and
Multinomial.

The element type comes from the ``dtype`` attribute, else from the spec's default (float for
RandomNormal/RandomUniform, int32 for Multinomial), else from the input (the ``*Like`` forms and
Bernoulli); it must be one of the output types of the operator's version. The shape comes from
the ``shape`` attribute, from the input, or (Multinomial) is ``[batch_size, sample_size]``.
"""

from __future__ import annotations

from collections.abc import Callable

from onnxcraft.dtypes import ElementType, type_string
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]


def _names(elems: frozenset[ElementType]) -> str:
    return ", ".join(sorted(type_string(e) for e in elems))


def _output_elem(ctx: InferenceContext, fallback: ElementType | None) -> ElementType | None:
    """The output element type: ``dtype`` if given, else ``fallback`` (None when unknown)."""
    allowed = ctx.op.outputs[0].tensor_elems or frozenset()
    dtype = ctx.attr("dtype")
    if dtype is None:
        if fallback is not None and fallback not in allowed:
            raise ctx.fail(
                f"the input's element type {type_string(fallback)} is not a valid output type "
                f"and the dtype attribute is not given (expected one of {_names(allowed)})"
            )
        return fallback
    try:
        elem = ElementType(int(dtype))
    except ValueError:
        raise ctx.fail(f"dtype={dtype} is not an ONNX element type") from None
    if elem not in allowed:
        raise ctx.fail(
            f"dtype={int(dtype)} ({elem.name.lower()}) is not allowed at version "
            f"{ctx.op.since_version} (expected one of {_names(allowed)})"
        )
    return elem


def _from_shape_attribute(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.attr("shape")
    if shape is None:
        raise ctx.fail("the shape attribute is required")
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ctx.fail(f"shape must not have negative dims, got {list(dims)}")
    return [Tensor(_output_elem(ctx, ElementType.FLOAT), dims)]


def _like_input(ctx: InferenceContext) -> list[ValueType | None]:
    """The *Like forms and Bernoulli: the input's shape, ``dtype`` or the input's type."""
    return [Tensor(_output_elem(ctx, ctx.elem(0)), ctx.shape(0))]


def _multinomial(ctx: InferenceContext) -> list[ValueType | None]:
    elem = _output_elem(ctx, ElementType.INT32)
    sample_size = int(ctx.attr("sample_size", 1))
    if sample_size < 1:
        raise ctx.fail(f"sample_size must be >= 1, got {sample_size}")
    shape = ctx.shape(0)
    if shape is None:
        return [Tensor(elem, (None, sample_size))]
    if len(shape) != 2:
        raise ctx.fail(f"the input must be 2-D [batch_size, class_size], got shape {list(shape)}")
    if shape[1] == 0:
        raise ctx.fail("the input has no classes to sample from (class_size is 0)")
    batch: Dim = shape[0]
    return [Tensor(elem, (batch, sample_size))]


def register(rules: RuleRegistry) -> None:
    table: tuple[tuple[str, Callable[[InferenceContext], list[ValueType | None]]], ...] = (
        ("RandomNormal", _from_shape_attribute),
        ("RandomUniform", _from_shape_attribute),
        ("RandomNormalLike", _like_input),
        ("RandomUniformLike", _like_input),
        ("Bernoulli", _like_input),
        ("Multinomial", _multinomial),
    )
    for op_type, rule in table:
        rules.add(op_type, rule, since=ALL_VERSIONS)
