"""TfidfVectorizer on short texts: StringNormalizer, StringSplit and TfIdfVectorizer.

scikit-learn lowercases each text, cuts it into tokens, counts the n-grams of its vocabulary,
multiplies the counts by ``idf_`` and scales each row to unit length (``norm="l2"``). In ONNX:

- ``StringNormalizer(case_change_action="LOWER")`` on the (N,) texts;
- ``StringSplit`` on whitespace: (N, longest text) tokens, padded with empty strings;
- ``TfIdfVectorizer(mode="TF")`` counts the vocabulary's 1- and 2-grams, one column per
  vocabulary index (its ``pool_strings`` lists the unigrams, then the bigrams word by word);
- ``Mul`` by the idf and a division by the row's L2 norm (a row with no known word stays 0).

The split is on whitespace, so the vectorizer must tokenize the same way: fit it with
``token_pattern=r"\\S+"`` (or on texts whose words are plain letters). The locale "C" keeps
the lowercasing to ASCII, which any runtime has.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op


def ngram_pool(vocabulary: dict[str, int]) -> tuple[list[str], list[int], list[int]]:
    """TfIdfVectorizer's ``pool_strings``, ``ngram_counts`` and ``ngram_indexes``."""
    by_length: dict[int, list[tuple[str, int]]] = {1: [], 2: []}
    for term, index in sorted(vocabulary.items(), key=lambda item: item[1]):
        by_length[len(term.split(" "))].append((term, index))
    pool = [word for term, _ in by_length[1] + by_length[2] for word in term.split(" ")]
    counts = [0, len(by_length[1])]  # where the 1-grams and the 2-grams start in the pool
    indexes = [index for _, index in by_length[1] + by_length[2]]
    return pool, counts, indexes


def convert_tfidf(vectorizer: Any) -> oc.proto.ModelProto:
    """A fitted TfidfVectorizer (lowercase, 1- or 2-grams, l2 norm): input ``text`` (N,)
    strings, output ``tfidf`` (N, vocabulary) float32."""
    low, high = vectorizer.ngram_range
    if high > 2:
        raise NotImplementedError(f"ngram_range up to 2, got {vectorizer.ngram_range}")
    pool, counts, indexes = ngram_pool(vectorizer.vocabulary_)
    text = oc.arg("text", np.str_, ("N",))
    lowered = op.StringNormalizer(text, case_change_action="LOWER", locale="C")
    tokens, _ = op.StringSplit(lowered)
    tf = op.TfIdfVectorizer(
        tokens,
        mode="TF",
        min_gram_length=low,
        max_gram_length=high,
        max_skip_count=0,
        pool_strings=pool,
        ngram_counts=counts,
        ngram_indexes=indexes,
    )
    weighted = tf * vectorizer.idf_.astype(np.float32)
    norm = op.Sqrt(op.ReduceSumSquare(weighted, np.array([1]), keepdims=1))
    tfidf = weighted / op.Where(norm == 0.0, 1.0, norm)
    return oc.build(inputs=[text], outputs={"tfidf": tfidf}, name="tfidf")
