"""String kernels and TfIdfVectorizer: hand-computed cases from the standard's text, onnxruntime
on hypothesis-generated pools and inputs, and clear errors for bad input."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.errors import EvaluationError
from onnxcraft.ops.text.kernels import (
    regex_full_match,
    string_concat,
    string_normalizer,
    string_split,
    tfidf_vectorizer,
)
from onnxcraft.opset.ai.onnx import v21 as op
from tests.core.oracle import run_ort

HYPOTHESIS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def _tfidf(x: Any, **attributes: Any) -> np.ndarray:
    base = {"min_gram_length": 1, "max_gram_length": 1, "max_skip_count": 0, "mode": "TF"}
    return tfidf_vectorizer(np.asarray(x), **{**base, **attributes})


# -- TfIdfVectorizer: the standard's examples and hand counts ----------------------------------


def test_skips_pick_tokens_that_far_apart() -> None:
    # The standard: in [94, 17, 36, 12, 28] with 2 skips the 2-grams are [94, 12] and [17, 28].
    pool = [94, 12, 17, 28, 94, 17]
    attributes = {
        "min_gram_length": 2,
        "max_gram_length": 2,
        "ngram_counts": [0, 0],
        "ngram_indexes": [0, 1, 2],
        "pool_int64s": pool,
    }
    x = np.array([94, 17, 36, 12, 28])
    exactly_two = _tfidf(x, max_skip_count=2, **attributes)
    # Up to 2 skips: also [94, 17] with no skip (and other pairs outside the pool).
    np.testing.assert_array_equal(exactly_two, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(_tfidf(x, max_skip_count=0, **attributes), [0.0, 0.0, 1.0])


def test_ngram_indexes_place_each_count() -> None:
    # The standard: pool [94, 17, 17, 36] of 2-grams, indexes [1, 0]: Y[0] counts [17, 36] and
    # Y[1] counts [94, 17].
    x = np.array([94, 17, 36, 94, 17], np.int32)
    y = _tfidf(
        x,
        min_gram_length=2,
        max_gram_length=2,
        ngram_counts=[0, 0],
        ngram_indexes=[1, 0],
        pool_int64s=[94, 17, 17, 36],
    )
    np.testing.assert_array_equal(y, np.array([1.0, 2.0], np.float32))
    assert y.dtype == np.float32


@pytest.mark.parametrize(
    ("mode", "expected"),
    # Counts of a, b, c in the row: 3, 0, 1; weights 2, 5, 0.5; indexes send a->2, b->0, c->1.
    [("TF", [0.0, 1.0, 3.0]), ("IDF", [0.0, 0.5, 2.0]), ("TFIDF", [0.0, 0.5, 6.0])],
)
def test_modes_weigh_the_counts(mode: str, expected: list[float]) -> None:
    y = _tfidf(
        np.array(["a", "c", "a", "a", "z"], dtype=object),
        mode=mode,
        ngram_counts=[0],
        ngram_indexes=[2, 0, 1],
        pool_strings=["a", "b", "c"],
        weights=[2.0, 5.0, 0.5],
    )
    np.testing.assert_array_equal(y, expected)


def test_ngrams_sharing_a_coordinate_add_up_in_every_mode() -> None:
    # a (count 2, weight 3) and b (count 1, weight 4) both go to coordinate 0. The standard
    # weighs each n-gram; onnxruntime keeps a single weight in IDF mode instead of adding.
    x = np.array([0, 1, 0])
    common = {
        "ngram_counts": [0],
        "ngram_indexes": [0, 0],
        "pool_int64s": [0, 1],
        "weights": [3.0, 4.0],
    }
    np.testing.assert_array_equal(_tfidf(x, mode="TF", **common), [3.0])
    np.testing.assert_array_equal(_tfidf(x, mode="IDF", **common), [7.0])
    np.testing.assert_array_equal(_tfidf(x, mode="TFIDF", **common), [10.0])


def test_batches_count_row_by_row_and_empty_inputs_give_zeros() -> None:
    attributes = {
        "min_gram_length": 1,
        "max_gram_length": 2,
        "ngram_counts": [0, 2],
        "ngram_indexes": [0, 1, 2],
        "pool_int64s": [5, 6, 5, 6],
    }
    y = _tfidf(np.array([[5, 6, 6], [6, 5, 5]]), **attributes)
    np.testing.assert_array_equal(y, [[1.0, 2.0, 1.0], [2.0, 1.0, 0.0]])
    np.testing.assert_array_equal(
        _tfidf(np.zeros((2, 0), np.int64), **attributes), np.zeros((2, 3))
    )
    assert _tfidf(np.zeros((0, 4), np.int64), **attributes).shape == (0, 3)
    np.testing.assert_array_equal(_tfidf(np.zeros(0, np.int64), **attributes), np.zeros(3))


def test_gram_lengths_outside_min_max_are_not_counted() -> None:
    common = {"ngram_counts": [0, 1], "ngram_indexes": [0, 1], "pool_int64s": [7, 7, 7]}
    x = np.array([7, 7, 7])
    np.testing.assert_array_equal(_tfidf(x, max_gram_length=2, **common), [3.0, 2.0])
    np.testing.assert_array_equal(
        _tfidf(x, min_gram_length=2, max_gram_length=2, **common), [0.0, 2.0]
    )


# -- TfIdfVectorizer against onnxruntime -------------------------------------------------------


@st.composite
def tfidf_cases(draw: st.DrawFn) -> tuple[dict[str, Any], np.ndarray]:
    """A pool of distinct n-grams (n <= 3) over a small alphabet, and tokens partly outside it."""
    strings = draw(st.booleans())
    alphabet: list[Any] = ["a", "b", "cc", "é", ""] if strings else [0, 1, 2, 3, 40]
    longest = draw(st.integers(1, 3))
    pool: list[Any] = []
    counts: list[int] = []
    for n in range(1, longest + 1):
        counts.append(len(pool))
        grams = draw(st.lists(st.tuples(*[st.sampled_from(alphabet)] * n), unique=True, max_size=4))
        pool.extend(item for gram in grams for item in gram)
    total = sum((b - a) // n for n, (a, b) in enumerate(zip(counts, [*counts[1:], len(pool)]), 1))
    if total == 0:  # keep at least one n-gram
        pool, counts, total = [alphabet[0]], [0] + [1] * (longest - 1), 1
    mode = draw(st.sampled_from(["TF", "IDF", "TFIDF"]))
    width = draw(st.integers(total, total + 2))
    # onnxruntime keeps one weight per coordinate in IDF mode (see the test above): unique
    # coordinates there; shared coordinates are generated for TF and TFIDF.
    indexes = draw(
        st.lists(st.integers(0, width - 1), min_size=total, max_size=total, unique=mode == "IDF")
    )
    maximum = draw(st.integers(1, longest))
    attributes: dict[str, Any] = {
        "mode": mode,
        "min_gram_length": draw(st.integers(1, maximum)),
        "max_gram_length": maximum,
        "max_skip_count": draw(st.integers(0, 3)),
        "ngram_counts": counts,
        "ngram_indexes": indexes,
        "pool_strings" if strings else "pool_int64s": pool,
    }
    if draw(st.booleans()):
        attributes["weights"] = draw(
            st.lists(st.floats(0.25, 4.0, width=32), min_size=total, max_size=total)
        )
    tokens = [*alphabet, "zz" if strings else 9]
    shape = draw(st.sampled_from([(7,), (0,), (2, 6), (1, 3), (3, 0)]))
    values = draw(
        st.lists(
            st.sampled_from(tokens), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))
        )
    )
    dtype = object if strings else draw(st.sampled_from([np.int32, np.int64]))
    return attributes, np.array(values, dtype=dtype).reshape(shape)


@HYPOTHESIS
@given(tfidf_cases())
def test_tfidf_matches_onnxruntime(case: tuple[dict[str, Any], np.ndarray]) -> None:
    attributes, x = case
    X = oc.arg("X", str if x.dtype == object else x.dtype, x.shape)
    model = oc.build(inputs=[X], outputs={"Y": op.TfIdfVectorizer(X, **attributes)})
    got = oc.evaluate(model, {"X": x})["Y"]
    want = run_ort(model, {"X": x})["Y"]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)


# -- TfIdfVectorizer errors --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "attributes", "message"),
    [
        (
            [1],
            {"ngram_counts": [0], "ngram_indexes": [0]},
            "exactly one of the attributes pool_int64s and pool_strings",
        ),
        (
            [1],
            {"ngram_counts": [0], "ngram_indexes": [0], "pool_int64s": [1], "pool_strings": ["a"]},
            "exactly one of the attributes",
        ),
        (
            np.array(["a"], dtype=object),
            {"ngram_counts": [0], "ngram_indexes": [0], "pool_int64s": [1]},
            "with pool_int64s the input must be an int32 or int64 tensor, got object",
        ),
        (
            [1.5],
            {"ngram_counts": [0], "ngram_indexes": [0], "pool_int64s": [1]},
            "must be an int32 or int64 tensor, got float64",
        ),
        (
            [1],
            {"ngram_counts": [0], "ngram_indexes": [0], "pool_strings": ["a"]},
            "input X must be a string tensor, got int64",
        ),
        (
            np.zeros((1, 1, 1), np.int64),
            {"ngram_counts": [0], "ngram_indexes": [0], "pool_int64s": [1]},
            r"must be 1-D \[C\] or 2-D \[N, C\], got shape \[1, 1, 1\]",
        ),
        (
            [1],
            {"ngram_counts": [0, 1], "ngram_indexes": [0, 1], "pool_int64s": [1, 2, 3, 4]},
            r"the pool's 2-grams \(items 1..3\) must be a multiple of 2 items, got 3",
        ),
        (
            [1],
            {"ngram_counts": [2, 1], "ngram_indexes": [0], "pool_int64s": [1, 2]},
            r"ngram_counts must be non-decreasing offsets into the pool \(of 2 items\)",
        ),
        (
            [1],
            {"ngram_counts": [0], "ngram_indexes": [0, 1, 2], "pool_int64s": [1, 5, 1]},
            r"the pool lists the 1-gram \[1\] twice",
        ),
        (
            [1],
            {"ngram_counts": [0], "ngram_indexes": [0], "pool_int64s": [1, 2]},
            r"ngram_indexes must have one entry per pool n-gram \(2\), got 1",
        ),
        (
            [1],
            {"ngram_counts": [0], "ngram_indexes": [0, -1], "pool_int64s": [1, 2]},
            "ngram_indexes must be >= 0",
        ),
        (
            [1],
            {"ngram_counts": [0], "ngram_indexes": [0], "pool_int64s": [1], "weights": [1.0, 2.0]},
            r"weights must have one entry per pool n-gram \(1\), got 2",
        ),
        (
            [1],
            {"ngram_counts": [0], "ngram_indexes": [0], "pool_int64s": [1], "mode": "BM25"},
            "mode must be TF, IDF or TFIDF, got 'BM25'",
        ),
        (
            [1],
            {"ngram_counts": [0], "ngram_indexes": [0], "pool_int64s": [1], "min_gram_length": 2},
            "expected 1 <= min_gram_length <= max_gram_length",
        ),
        (
            [1],
            {"ngram_counts": [0], "ngram_indexes": [0], "pool_int64s": [1], "max_skip_count": -1},
            "max_skip_count must be >= 0, got -1",
        ),
    ],
)
def test_tfidf_rejects_bad_input(x: Any, attributes: dict[str, Any], message: str) -> None:
    with pytest.raises(EvaluationError, match="TfIdfVectorizer: .*" + message):
        _tfidf(np.asarray(x), **attributes)


def test_tfidf_requires_its_attributes() -> None:
    with pytest.raises(
        EvaluationError, match=r"TfIdfVectorizer: the mode, .* attributes are required"
    ):
        tfidf_vectorizer(
            np.array([1]),
            min_gram_length=1,
            max_gram_length=1,
            max_skip_count=0,
            ngram_counts=[0],
            ngram_indexes=[0],
            pool_int64s=[1],
        )


# -- the other string kernels ------------------------------------------------------------------


def test_split_on_whitespace_drops_it_around_the_remainder_too() -> None:
    # The standard: without a delimiter leading and trailing whitespace is removed.
    words = np.array(["  a  b c ", "a\tb\n", ""], dtype=object)
    parts, counts = string_split(words, maxsplit=1)
    np.testing.assert_array_equal(parts, [["a", "b c"], ["a", "b"], ["", ""]])
    np.testing.assert_array_equal(counts, [2, 2, 0])


def test_split_on_a_delimiter_keeps_empty_substrings() -> None:
    parts, counts = string_split(
        np.array(
            [
                ["a,,b"],
                [
                    "",
                ],
            ],
            dtype=object,
        ),
        delimiter=",",
    )
    np.testing.assert_array_equal(parts, [[["a", "", "b"]], [["", "", ""]]])
    np.testing.assert_array_equal(counts, [[3], [1]])


@HYPOTHESIS
@given(
    st.lists(st.text(alphabet="ab ,", min_size=1, max_size=8), max_size=5),
    st.sampled_from([None, ",", " ", "ab"]),
    st.sampled_from([None, 0, 1, 2]),
)
def test_split_matches_onnxruntime(words: list[str], delimiter: Any, maxsplit: Any) -> None:
    # Kept to spaces and non-empty strings: onnxruntime treats only " " as whitespace and
    # splits "" into no substring, where Python's str (and the ONNX reference) give [""].
    x = np.array(words, dtype=object)
    X = oc.arg("X", str, (len(words),))
    attributes = {
        k: v for k, v in (("delimiter", delimiter), ("maxsplit", maxsplit)) if v is not None
    }
    parts, counts = op.StringSplit(X, **attributes)
    model = oc.build(inputs=[X], outputs={"parts": parts, "counts": counts})
    got, want = oc.evaluate(model, {"X": x}), run_ort(model, {"X": x})
    assert got["parts"].shape == want["parts"].shape
    np.testing.assert_array_equal(got["parts"], want["parts"])
    np.testing.assert_array_equal(got["counts"], want["counts"])


@pytest.mark.parametrize("shape", [(2, 2), (1, 1, 1), (), (0,), (1, 0)])
def test_normalizer_accepts_only_c_or_1_by_c_with_words(shape: tuple[int, ...]) -> None:
    x = np.full(shape, "w", dtype=object)
    with pytest.raises(EvaluationError, match="StringNormalizer: the input must"):
        string_normalizer(x)


def test_normalizer_gives_one_empty_string_when_every_word_is_a_stopword() -> None:
    x = np.array([["The", "the"]], dtype=object)
    y = string_normalizer(x, stopwords=["THE"])
    assert y.shape == (1, 1) and y[0, 0] == ""


def test_string_kernels_name_the_operator_and_argument() -> None:
    with pytest.raises(EvaluationError, match="StringConcat: input Y must be a string tensor"):
        string_concat(np.array(["a"], dtype=object), np.array([1]))
    with pytest.raises(
        EvaluationError, match=r"StringConcat: cannot broadcast X \[2\] with Y \[3\]"
    ):
        string_concat(np.array(["a", "b"], dtype=object), np.array(["x", "y", "z"], dtype=object))
    with pytest.raises(EvaluationError, match="RegexFullMatch: the pattern attribute is required"):
        regex_full_match(np.array(["a"], dtype=object))
    with pytest.raises(EvaluationError, match="StringSplit: input X must be a string tensor"):
        string_split(np.array([1.0]))
