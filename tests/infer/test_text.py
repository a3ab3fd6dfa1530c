"""Rules of the text family: StringNormalizer, StringConcat, StringSplit, RegexFullMatch and
TfIdfVectorizer; checked by hand on symbolic shapes and against the evaluator on generated
inputs (through the DSL and through ``oc.infer_shapes``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import InferenceError
from onnxcraft.opset.ai.onnx import v10, v21
from onnxcraft.types import Tensor
from tests.infer._agreement import evaluate_and_check

STRING, INT64 = ElementType.STRING, ElementType.INT64
HYPOTHESIS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def _strings(shape: tuple[int, ...], words: list[str] | None = None) -> np.ndarray:
    size = int(np.prod(shape))
    pool = words or ["Monday", "the", "a b", ""]
    return np.array([pool[i % len(pool)] for i in range(size)], dtype=object).reshape(shape)


# -- StringNormalizer ----------------------------------------------------------------------------


def test_normalizer_keeps_the_width_without_stopwords() -> None:
    X = oc.arg("X", str, ("C",))
    assert v10.StringNormalizer(X, case_change_action="UPPER").type == Tensor(STRING, ("C",))
    Y = oc.arg("Y", str, (1, 5))
    assert v21.StringNormalizer(Y).type == Tensor(STRING, (1, 5))


def test_normalizer_width_is_unknown_when_stopwords_may_remove_words() -> None:
    X = oc.arg("X", str, (1, 4))
    assert v21.StringNormalizer(X, stopwords=["the"]).type == Tensor(STRING, (1, None))
    # One word either stays or becomes the single "" of an emptied input.
    one = oc.arg("One", str, (1,))
    assert v21.StringNormalizer(one, stopwords=["the"]).type == Tensor(STRING, (1,))


@pytest.mark.parametrize("shape", [(2, 3), (1, 2, 3), (), (0,), (1, 0)])
def test_normalizer_rejects_what_the_evaluator_rejects(shape: tuple[int, ...]) -> None:
    with pytest.raises(InferenceError, match="StringNormalizer: the input must"):
        v21.StringNormalizer(oc.arg("X", str, shape))


@pytest.mark.parametrize("stopwords", [None, ["the", "monday"], ["nothing"]])
@pytest.mark.parametrize("shape", [(4,), (1, 6), (1, 1)])
def test_normalizer_rule_fits_the_evaluated_output(
    stopwords: list[str] | None, shape: tuple[int, ...]
) -> None:
    X = oc.arg("X", str, shape)
    y = v21.StringNormalizer(X, case_change_action="LOWER", stopwords=stopwords)
    evaluate_and_check([X], {"y": y}, {"X": _strings(shape)})


# -- StringConcat, RegexFullMatch ---------------------------------------------------------------


def test_concat_broadcasts_and_match_keeps_the_shape() -> None:
    X = oc.arg("X", str, ("N", 1))
    Y = oc.arg("Y", str, (3,))
    assert v21.StringConcat(X, Y).type == Tensor(STRING, ("N", 3))
    assert v21.RegexFullMatch(X, pattern="a+").type == Tensor(ElementType.BOOL, ("N", 1))
    with pytest.raises(InferenceError, match="StringConcat: cannot broadcast X"):
        v21.StringConcat(oc.arg("A", str, (2,)), oc.arg("B", str, (3,)))
    with pytest.raises(InferenceError, match="RegexFullMatch: the pattern attribute is required"):
        v21.RegexFullMatch(X)


def test_concat_and_match_rules_fit_the_evaluated_outputs() -> None:
    X = oc.arg("X", str, ("N", 1))
    Y = oc.arg("Y", str, (3,))
    outputs = {"joined": v21.StringConcat(X, Y), "matched": v21.RegexFullMatch(Y, pattern="[a-z]+")}
    evaluate_and_check(
        [X, Y], outputs, {"X": _strings((2, 1)), "Y": _strings((3,), ["ab", "1", "c"])}
    )


# -- StringSplit ---------------------------------------------------------------------------------


def test_split_adds_an_unknown_axis_and_counts_per_string() -> None:
    X = oc.arg("X", str, ("N", 2))
    parts, counts = v21.StringSplit(X, delimiter=",")
    assert parts.type == Tensor(STRING, ("N", 2, None))
    assert counts.type == Tensor(INT64, ("N", 2))
    empty_parts, _ = v21.StringSplit(oc.arg("E", str, (0, 3)))
    assert empty_parts.type == Tensor(STRING, (0, 3, 0))
    unknown_parts, unknown_counts = v21.StringSplit(oc.arg("U", str, None))
    assert unknown_parts.type == Tensor(STRING, None)
    assert unknown_counts.type == Tensor(INT64, None)


@HYPOTHESIS
@given(
    st.sampled_from([(3,), (2, 2), (0,), (), (2, 0, 1)]),
    st.lists(st.text(alphabet="ab ,\t", max_size=6), min_size=1, max_size=4),
    st.sampled_from([None, ",", " "]),
    st.sampled_from([None, 0, 2]),
)
def test_split_rule_fits_the_evaluated_outputs(
    shape: tuple[int, ...], words: list[str], delimiter: Any, maxsplit: Any
) -> None:
    X = oc.arg("X", str, shape)
    attributes = {
        k: v for k, v in (("delimiter", delimiter), ("maxsplit", maxsplit)) if v is not None
    }
    parts, counts = v21.StringSplit(X, **attributes)
    evaluate_and_check([X], {"parts": parts, "counts": counts}, {"X": _strings(shape, words)})


# -- TfIdfVectorizer -----------------------------------------------------------------------------

TFIDF = {
    "min_gram_length": 1,
    "max_gram_length": 2,
    "max_skip_count": 1,
    "mode": "TF",
    "ngram_counts": [0, 2],
    "ngram_indexes": [4, 0, 1],
    "pool_int64s": [1, 2, 1, 2],
}


def test_tfidf_width_comes_from_ngram_indexes() -> None:
    X = oc.arg("X", np.int64, ("N", "C"))
    assert v21.TfIdfVectorizer(X, **TFIDF).type == Tensor(ElementType.FLOAT, ("N", 5))
    one_d = oc.arg("Y", np.int32, ("C",))
    assert v21.TfIdfVectorizer(one_d, **TFIDF).type == Tensor(ElementType.FLOAT, (5,))
    unknown = oc.arg("U", np.int64, None)
    assert v21.TfIdfVectorizer(unknown, **TFIDF).type == Tensor(ElementType.FLOAT, None)


def test_tfidf_rule_rejects_what_the_evaluator_rejects() -> None:
    with pytest.raises(InferenceError, match=r"TfIdfVectorizer: the input must be 1-D"):
        v21.TfIdfVectorizer(oc.arg("X", np.int64, (1, 2, 3)), **TFIDF)
    with pytest.raises(InferenceError, match="with pool_int64s the input must be int32 or int64"):
        v21.TfIdfVectorizer(oc.arg("S", str, (3,)), **TFIDF)
    strings = {**TFIDF, "pool_strings": ["a", "b", "a", "b"]}
    with pytest.raises(InferenceError, match="exactly one of the attributes"):
        v21.TfIdfVectorizer(oc.arg("T", np.int64, (3,)), **strings)
    del strings["pool_int64s"]
    with pytest.raises(InferenceError, match="with pool_strings the input must be a string"):
        v21.TfIdfVectorizer(oc.arg("I", np.int64, (3,)), **strings)


@HYPOTHESIS
@given(
    st.sampled_from([(6,), (0,), (3, 4), (2, 0), (0, 3)]),
    st.lists(st.integers(0, 4), min_size=3, max_size=3),
    st.booleans(),
)
def test_tfidf_rule_fits_the_evaluated_output(
    shape: tuple[int, ...], indexes: list[int], strings: bool
) -> None:
    attributes: dict[str, Any] = {**TFIDF, "ngram_indexes": indexes}
    if strings:
        del attributes["pool_int64s"]
        attributes["pool_strings"] = ["a", "b", "a", "b"]
        X = oc.arg("X", str, ("N", "C")[-len(shape) :])
        x = _strings(shape, ["a", "b", "c"])
    else:
        X = oc.arg("X", np.int64, ("N", "C")[-len(shape) :])
        x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) % 3
    evaluate_and_check([X], {"y": v21.TfIdfVectorizer(X, **attributes)}, {"X": x})
