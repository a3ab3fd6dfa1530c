"""Rules of the text family: StringNormalizer, StringConcat, StringSplit, RegexFullMatch and
TfIdfVectorizer.

Only facts the evaluator guarantees are stated: StringNormalizer keeps the input's width unless
stopwords may remove words; StringSplit adds one trailing dim whose length depends on the data
(0 when the input is known to be empty); TfIdfVectorizer's width is ``max(ngram_indexes) + 1``.
"""

from __future__ import annotations

from collections.abc import Callable

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import broadcast
from onnxcraft.types import Dim, Shape, Tensor, ValueType

__all__ = ["register"]

STRING = ElementType.STRING


def _string_normalizer(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is None:
        return [Tensor(STRING, None)]
    if len(shape) not in (1, 2) or (
        len(shape) == 2 and isinstance(shape[0], int) and shape[0] != 1
    ):
        raise ctx.fail(f"the input must have shape [C] or [1, C], got {list(shape)}")
    width = shape[-1]
    if width == 0:
        raise ctx.fail(f"the input must hold at least one string, got shape {list(shape)}")
    if ctx.attr("stopwords") and width != 1:
        # Stopwords may remove any number of words (an input losing them all gives [""]).
        width = None
    return [Tensor(STRING, (*shape[:-1], width))]


def _string_concat(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(STRING, broadcast(ctx.op.op_type, ctx.shape(0), ctx.shape(1), ("X", "Y")))]


def _string_split(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is None:
        return [Tensor(STRING, None), Tensor(ElementType.INT64, None)]
    # The substrings' axis is as long as the longest split: unknown, unless there is no string.
    parts: Dim = 0 if 0 in shape else None
    return [Tensor(STRING, (*shape, parts)), Tensor(ElementType.INT64, shape)]


def _regex_full_match(ctx: InferenceContext) -> list[ValueType | None]:
    if ctx.attr("pattern") is None:
        raise ctx.fail("the pattern attribute is required")
    return [Tensor(ElementType.BOOL, ctx.shape(0))]


def _check_tfidf_pool(ctx: InferenceContext) -> None:
    has_ints, has_strings = (
        ctx.attr("pool_int64s") is not None,
        ctx.attr("pool_strings") is not None,
    )
    if has_ints == has_strings:
        raise ctx.fail("exactly one of the attributes pool_int64s and pool_strings must be given")
    elem = ctx.elem(0)
    if elem is None:
        return
    if has_strings and elem != STRING:
        raise ctx.fail(f"with pool_strings the input must be a string tensor, got {elem.name}")
    if has_ints and elem not in (ElementType.INT32, ElementType.INT64):
        raise ctx.fail(f"with pool_int64s the input must be int32 or int64, got {elem.name}")


def _tfidf_vectorizer(ctx: InferenceContext) -> list[ValueType | None]:
    _check_tfidf_pool(ctx)
    indexes = [int(i) for i in ctx.attr("ngram_indexes", None) or []]
    if any(i < 0 for i in indexes):
        raise ctx.fail(f"ngram_indexes must be >= 0, got {indexes}")
    width = max(indexes) + 1 if indexes else 0
    shape = ctx.shape(0)
    out: Shape
    if shape is None:
        out = None
    elif len(shape) == 1:
        out = (width,)
    elif len(shape) == 2:
        out = (shape[0], width)
    else:
        raise ctx.fail(f"the input must be 1-D [C] or 2-D [N, C], got shape {list(shape)}")
    return [Tensor(ElementType.FLOAT, out)]


def register(rules: RuleRegistry) -> None:
    table: tuple[tuple[str, Callable[[InferenceContext], list[ValueType | None]]], ...] = (
        ("StringNormalizer", _string_normalizer),
        ("StringConcat", _string_concat),
        ("StringSplit", _string_split),
        ("RegexFullMatch", _regex_full_match),
        ("TfIdfVectorizer", _tfidf_vectorizer),
    )
    for op_type, rule in table:
        rules.add(op_type, rule, since=ALL_VERSIONS)
