"""Recipes of the text family: strategies drawing valid nodes of StringConcat, StringNormalizer,
StringSplit, RegexFullMatch, TfIdfVectorizer, every version."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import binary

__all__ = ["register"]

_WORDS = st.sampled_from(["a", "B", "ab", "Cab", "a b", "b,a", "", "abc"])


def _strings(n: NodeDraw, shape: tuple[int, ...]) -> np.ndarray:
    words = n.draw(st.lists(_WORDS, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    array = np.empty(shape, dtype=object)
    array.reshape(-1)[:] = words
    return array


@recipe
def string_normalizer(n: NodeDraw) -> NodeCase:
    shape = n.choice([(n.integer(1, 3),), (1, n.integer(1, 3))])  # the kernels want a string
    attrs = n.attrs(
        case_change_action=st.sampled_from(["NONE", "LOWER", "UPPER"]),
        is_case_sensitive=st.sampled_from([0, 1]),
        stopwords=st.sampled_from([None, ["a"], ["ab", "b"]]),
    )
    return n.case([n.given(_strings(n, shape))], attrs)


@recipe
def string_split(n: NodeDraw) -> NodeCase:
    x = n.given(_strings(n, n.shape(max_dims=2, max_side=3)))
    attrs = n.attrs(
        delimiter=st.sampled_from([None, " ", ","]), maxsplit=st.sampled_from([None, 1])
    )
    return n.case([x], attrs, outputs=2)


@recipe
def regex_full_match(n: NodeDraw) -> NodeCase:
    x = n.given(_strings(n, n.shape(max_dims=2, max_side=3)))
    return n.case([x], {"pattern": n.choice(["a.*", "[a-c]+", ".*b.*", "(ab)?c"])})


@recipe
def tf_idf_vectorizer(n: NodeDraw) -> NodeCase:
    elem = n.elem("T")
    unigrams, bigrams = [1, 2, 3], [1, 2, 2, 3]
    pool = unigrams + bigrams
    count = len(unigrams) + len(bigrams) // 2
    indexes = list(n.draw(st.permutations(list(range(count)))))
    shape = n.choice([(n.integer(0, 5),), (n.integer(1, 2), n.integer(0, 5))])
    tokens = n.array(ElementType.INT64, shape, low=0, high=4)
    mode = n.choice(["TF", "IDF", "TFIDF"])
    attrs: dict[str, Any] = {
        "mode": mode,
        "ngram_counts": [0, len(unigrams)],
        "ngram_indexes": indexes,
        "min_gram_length": n.integer(1, 2),
        "max_gram_length": 2,
        "max_skip_count": n.integer(0, 1),
    }
    if elem == ElementType.STRING:
        attrs["pool_strings"] = [str(v) for v in pool]
        text = np.empty(shape, dtype=object)
        text.reshape(-1)[:] = [str(v) for v in tokens.reshape(-1)]
        x = n.given(text)
    else:
        attrs["pool_int64s"] = pool
        x = n.given(tokens.astype(numpy_dtype(elem)))
    if mode != "TF" and n.flag():
        attrs["weights"] = [1.0 + i for i in range(count)]
    return n.case([x], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("StringConcat", binary())
    recipes.add("StringNormalizer", string_normalizer)
    recipes.add("StringSplit", string_split)
    recipes.add("RegexFullMatch", regex_full_match)
    recipes.add("TfIdfVectorizer", tf_idf_vectorizer)
