"""TfidfVectorizer on short texts against scikit-learn, on both backends."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

from examples.converters.tfidf import convert_tfidf
from tests.converters.backends import Backends

CORPUS = [
    "the cat sat on the mat",
    "the dog chased the cat",
    "a quick brown fox",
    "the quick dog sat",
    "cats and dogs and foxes",
]
WORDS = sorted({w for text in CORPUS for w in text.split()}) + ["zebra", "mat-cat"]


@cache
def vectorizer(ngram_range: tuple[int, int]) -> TfidfVectorizer:
    return TfidfVectorizer(ngram_range=ngram_range, token_pattern=r"\S+").fit(CORPUS)


@cache
def backends(ngram_range: tuple[int, int]) -> Backends:
    return Backends(convert_tfidf(vectorizer(ngram_range)))


word = st.tuples(st.sampled_from(WORDS), st.sampled_from([str.lower, str.upper, str.title])).map(
    lambda pair: pair[1](pair[0])
)
# Words are separated by spaces only: onnxruntime's StringSplit (1.32) splits on " " where the
# standard says whitespace (tabs and newlines included, as onnx.reference and onnxcraft do).
texts = st.lists(
    st.lists(word, min_size=1, max_size=7).flatmap(
        lambda words: st.sampled_from([" ", "  "]).map(lambda gap: gap.join(words))
    ),
    min_size=1,
    max_size=5,
)


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)])
@settings(max_examples=20, deadline=None, derandomize=True)
@given(data=texts)
def test_tfidf_matches_scikit_learn(ngram_range: tuple[int, int], data: list[str]) -> None:
    text = np.array(data, dtype=object)
    expected = vectorizer(ngram_range).transform(data).toarray()
    for backend, outputs in backends(ngram_range).run({"text": text}).items():
        # float32 products and an L2 norm of at most ~15 terms.
        np.testing.assert_allclose(outputs["tfidf"], expected, atol=1e-6, err_msg=backend)
