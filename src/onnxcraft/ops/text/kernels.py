"""Kernels for string tensors: StringNormalizer, StringConcat, StringSplit, RegexFullMatch, and
the n-gram counter TfIdfVectorizer (over string or integer tokens).

RegexFullMatch uses Python's ``re``; patterns are RE2 syntax in the standard, and the two agree
on the common subset (classes, quantifiers, groups, anchors). RE2-only constructs such as
``\\pL`` raise a clear error instead of matching differently.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import fail
from onnxcraft.ops.versions import versions

__all__ = ["register"]


def _strings(x: Any, op: str, arg: str = "X") -> np.ndarray:
    """Input ``arg`` of ``op`` as an object array of str, or fail when it is not a string tensor."""
    array = np.asarray(x)
    if array.dtype != object and array.dtype.kind not in "US":
        fail(op, f"input {arg} must be a string tensor, got {array.dtype}")
    return array.astype(object)


def string_normalizer(
    x: Any,
    *,
    case_change_action: str = "NONE",
    is_case_sensitive: int = 0,
    locale: str | None = None,
    stopwords: list[str] | None = None,
) -> np.ndarray:
    array = _strings(x, "StringNormalizer")
    if array.ndim not in (1, 2) or (array.ndim == 2 and array.shape[0] != 1):
        fail(
            "StringNormalizer", f"the input must have shape [C] or [1, C], got {list(array.shape)}"
        )
    if array.size == 0:
        fail(
            "StringNormalizer", f"the input must hold at least one string, got {list(array.shape)}"
        )
    words = list(array.reshape(-1))
    if stopwords:
        if is_case_sensitive:
            stop = set(stopwords)
            words = [w for w in words if w not in stop]
        else:
            stop = {s.casefold() for s in stopwords}
            words = [w for w in words if w.casefold() not in stop]
    if case_change_action == "LOWER":
        words = [w.lower() for w in words]
    elif case_change_action == "UPPER":
        words = [w.upper() for w in words]
    elif case_change_action != "NONE":
        fail(
            "StringNormalizer",
            f"case_change_action must be LOWER, UPPER or NONE, got {case_change_action!r}",
        )
    if not words:
        words = [""]  # an input that loses every word becomes a single empty string
    result = np.empty(len(words), dtype=object)
    result[:] = words
    return result.reshape((1, -1)) if array.ndim == 2 else result


def string_concat(x: Any, y: Any) -> np.ndarray:
    left, right = _strings(x, "StringConcat", "X"), _strings(y, "StringConcat", "Y")
    try:
        a, b = np.broadcast_arrays(left, right)
    except ValueError:
        fail(
            "StringConcat",
            f"cannot broadcast X {list(left.shape)} with Y {list(right.shape)}",
        )
    out = np.empty(a.shape, dtype=object)
    out.reshape(-1)[:] = [p + q for p, q in zip(a.reshape(-1), b.reshape(-1))]
    return out


def string_split(
    x: Any, *, delimiter: str | None = None, maxsplit: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Split each string; the substrings are padded with "" to the longest split.

    Without a delimiter (or with ""), runs of whitespace (Python's ``str.isspace`` set) separate
    substrings and leading and trailing whitespace is dropped, also from the remainder left
    by ``maxsplit``. With a delimiter every occurrence separates, so "" gives one substring "".
    """
    array = _strings(x, "StringSplit")
    limit = -1 if maxsplit is None else maxsplit
    parts = [
        s.split(delimiter, limit) if delimiter else s.strip().split(None, limit)
        for s in array.reshape(-1)
    ]
    width = max((len(p) for p in parts), default=0)
    out = np.full((len(parts), width), "", dtype=object)
    for i, p in enumerate(parts):
        out[i, : len(p)] = p
    counts = np.array([len(p) for p in parts], dtype=np.int64).reshape(array.shape)
    return out.reshape(array.shape + (width,)), counts


def regex_full_match(x: Any, *, pattern: str | None = None) -> np.ndarray:
    if pattern is None:
        fail("RegexFullMatch", "the pattern attribute is required")
    if re.search(r"\\[pP]\{?\w", pattern):
        fail("RegexFullMatch", f"pattern {pattern!r} uses an RE2 Unicode class not supported here")
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        fail("RegexFullMatch", f"invalid pattern {pattern!r}: {exc}")
    array = _strings(x, "RegexFullMatch")
    flat = [compiled.fullmatch(s) is not None for s in array.reshape(-1)]
    return np.array(flat, dtype=bool).reshape(array.shape)


# -- TfIdfVectorizer ------------------------------------------------------------------------------

_TFIDF = "TfIdfVectorizer"


@dataclass(frozen=True)
class _GramTable:
    """The pool's n-grams of one length ``n``, as rows of vocabulary ids."""

    n: int
    rows: np.ndarray  # [P, n] int64: the P n-grams of length n
    first: int  # the index of the first of them among all the pool's n-grams


def _pool_tables(op: str, pool: np.ndarray, ngram_counts: Sequence[int]) -> list[_GramTable]:
    """Cut the pool into n-grams of length 1, 2, ... as ``ngram_counts`` says (CSR style)."""
    starts = [int(c) for c in ngram_counts]
    bounds = [*starts, len(pool)]
    if any(not 0 <= a <= b <= len(pool) for a, b in itertools.pairwise(bounds)):
        fail(
            op,
            f"ngram_counts must be non-decreasing offsets into the pool (of {len(pool)} items), "
            f"got {starts}",
        )
    ids = _token_ids(pool, pool)
    tables, first = [], 0
    for n, (start, stop) in enumerate(itertools.pairwise(bounds), start=1):
        if (stop - start) % n:
            fail(
                op,
                f"the pool's {n}-grams (items {start}..{stop - 1}) must be a multiple of {n} "
                f"items, got {stop - start}",
            )
        rows = ids[start:stop].reshape(-1, n)
        _check_unique(op, rows, pool[start:stop], n)
        tables.append(_GramTable(n, rows, first))
        first += len(rows)
    return tables


def _check_unique(op: str, rows: np.ndarray, items: np.ndarray, n: int) -> None:
    if len(rows) < 2:
        return
    _, index, counts = np.unique(rows, axis=0, return_index=True, return_counts=True)
    if (counts > 1).any():
        at = int(index[np.argmax(counts > 1)])
        fail(op, f"the pool lists the {n}-gram {items[at * n : (at + 1) * n].tolist()} twice")


def _token_ids(tokens: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """Each token's id among the pool's distinct items; -1 outside the pool (matches nothing)."""
    if tokens.dtype == object:
        # Strings: a dictionary lookup per token, as numpy's fixed-width str arrays would drop
        # trailing NULs and so merge distinct strings.
        vocabulary = {item: i for i, item in enumerate(dict.fromkeys(pool.tolist()))}
        flat = tokens.reshape(-1)
        found = np.fromiter((vocabulary.get(t, -1) for t in flat), np.int64, count=flat.size)
        return found.reshape(tokens.shape)
    distinct = np.unique(pool)
    if distinct.size == 0:
        return np.full(tokens.shape, -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(distinct, tokens), distinct.size - 1)
    ids: np.ndarray = np.where(distinct[at] == tokens, at, -1).astype(np.int64)
    return ids


def _windows(ids: np.ndarray, n: int, max_skip_count: int) -> list[np.ndarray]:
    """Per skip count, the n-grams of every row: arrays [N, L, n] of token ids."""
    length = ids.shape[1]
    skips = range(max_skip_count + 1) if n > 1 else range(1)  # a 1-gram has nothing to skip
    found = []
    for skip in skips:
        span = (n - 1) * (skip + 1)
        if span >= length:
            break
        positions = np.arange(length - span)[:, None] + np.arange(n)[None, :] * (skip + 1)
        found.append(ids[:, positions])
    return found


def _count_table(ids: np.ndarray, table: _GramTable, max_skip_count: int) -> np.ndarray:
    """How often each n-gram of ``table`` occurs in each row: an array [N, P]."""
    rows, pool_size = ids.shape[0], len(table.rows)
    counts = np.zeros((rows, pool_size), dtype=np.float64)
    windows = _windows(ids, table.n, max_skip_count)
    if not windows or pool_size == 0 or rows == 0:
        return counts
    found = np.concatenate([w.reshape(rows, -1, table.n) for w in windows], axis=1)
    # Number every distinct n-gram among the pool's and the input's, then map back to the pool.
    together = np.concatenate([table.rows, found.reshape(-1, table.n)])
    _, inverse = np.unique(together, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    to_pool = np.full(int(inverse.max()) + 1, -1, dtype=np.int64)
    to_pool[inverse[:pool_size]] = np.arange(pool_size)
    matched = to_pool[inverse[pool_size:]].reshape(rows, -1)
    row_of = np.broadcast_to(np.arange(rows)[:, None], matched.shape)
    hits = matched >= 0
    flat = row_of[hits] * pool_size + matched[hits]
    return np.bincount(flat, minlength=rows * pool_size).reshape(rows, pool_size).astype(float)


@dataclass(frozen=True)
class _TfIdfSettings:
    mode: str
    min_gram_length: int
    max_gram_length: int
    max_skip_count: int
    ngram_indexes: np.ndarray


def _tfidf_settings(
    mode: str | None,
    min_gram_length: int | None,
    max_gram_length: int | None,
    max_skip_count: int | None,
    ngram_indexes: Sequence[int] | None,
) -> _TfIdfSettings:
    """The required attributes, checked."""
    op = _TFIDF
    if mode is None or min_gram_length is None or max_gram_length is None:
        fail(op, "the mode, min_gram_length and max_gram_length attributes are required")
    if max_skip_count is None or ngram_indexes is None:
        fail(op, "the max_skip_count and ngram_indexes attributes are required")
    if mode not in ("TF", "IDF", "TFIDF"):
        fail(op, f"mode must be TF, IDF or TFIDF, got {mode!r}")
    if not 1 <= min_gram_length <= max_gram_length:
        fail(
            op,
            f"expected 1 <= min_gram_length <= max_gram_length, got min_gram_length="
            f"{min_gram_length} and max_gram_length={max_gram_length}",
        )
    if max_skip_count < 0:
        fail(op, f"max_skip_count must be >= 0, got {max_skip_count}")
    indexes = np.asarray(ngram_indexes, dtype=np.int64).reshape(-1)
    if (indexes < 0).any():
        fail(op, f"ngram_indexes must be >= 0, got {indexes.tolist()}")
    return _TfIdfSettings(mode, min_gram_length, max_gram_length, max_skip_count, indexes)


def _tfidf_tokens(x: Any, pool_int64s: Any, pool_strings: Any) -> tuple[np.ndarray, np.ndarray]:
    """The input as a 2-D array (int64, or object for strings) and the pool of the same kind."""
    op = _TFIDF
    if (pool_int64s is None) == (pool_strings is None):
        fail(op, "exactly one of the attributes pool_int64s and pool_strings must be given")
    array = np.asarray(x)
    if array.ndim not in (1, 2):
        fail(op, f"the input must be 1-D [C] or 2-D [N, C], got shape {list(array.shape)}")
    rows = array.reshape(1, -1) if array.ndim == 1 else array
    if pool_strings is not None:
        pool = np.empty(len(pool_strings), dtype=object)
        pool[:] = [str(s) for s in pool_strings]
        return _strings(rows, op), pool
    if array.dtype.kind not in "iu":
        fail(op, f"with pool_int64s the input must be an int32 or int64 tensor, got {array.dtype}")
    return rows.astype(np.int64), np.asarray(pool_int64s, dtype=np.int64).reshape(-1)


def tfidf_vectorizer(
    x: Any,
    *,
    max_gram_length: int | None = None,
    max_skip_count: int | None = None,
    min_gram_length: int | None = None,
    mode: str | None = None,
    ngram_counts: Sequence[int] | None = None,
    ngram_indexes: Sequence[int] | None = None,
    pool_int64s: Sequence[int] | None = None,
    pool_strings: Sequence[str] | None = None,
    weights: Sequence[float] | None = None,
) -> np.ndarray:
    """Count the pool's n-grams in each row, then weight the counts as ``mode`` says.

    Output coordinate ``ngram_indexes[i]`` receives the value of the pool's i-th n-gram (their
    values add up when two n-grams share a coordinate). TF is the count, IDF is
    ``weights[i]`` when the count is positive, TFIDF is ``count * weights[i]``.
    """
    op = _TFIDF
    settings = _tfidf_settings(
        mode, min_gram_length, max_gram_length, max_skip_count, ngram_indexes
    )
    tokens, pool = _tfidf_tokens(x, pool_int64s, pool_strings)
    tables = _pool_tables(op, pool, [] if ngram_counts is None else ngram_counts)
    total = sum(len(t.rows) for t in tables)
    indexes = settings.ngram_indexes
    if len(indexes) != total:
        fail(op, f"ngram_indexes must have one entry per pool n-gram ({total}), got {len(indexes)}")
    scale = np.ones(total) if weights is None else np.asarray(weights, dtype=np.float64)
    if scale.shape != (total,):
        fail(op, f"weights must have one entry per pool n-gram ({total}), got {scale.size}")
    ids = _token_ids(tokens, pool)
    counts = np.zeros((ids.shape[0], total))
    for table in tables:
        if settings.min_gram_length <= table.n <= settings.max_gram_length:
            counts[:, table.first : table.first + len(table.rows)] = _count_table(
                ids, table, settings.max_skip_count
            )
    if settings.mode == "IDF":
        values = (counts > 0) * scale
    elif settings.mode == "TFIDF":
        values = counts * scale
    else:
        values = counts
    width = int(indexes.max()) + 1 if total else 0
    out = np.zeros((ids.shape[0], width), dtype=np.float32)
    np.add.at(out.T, indexes, values.T.astype(np.float32))  # columns sharing an index add up
    return out.reshape(-1) if np.asarray(x).ndim == 1 else out


def register(kernels: KernelRegistry) -> None:
    kernels.add("StringNormalizer", string_normalizer, since=versions("StringNormalizer"))
    kernels.add("StringConcat", string_concat, since=versions("StringConcat"))
    kernels.add("StringSplit", string_split, since=versions("StringSplit"))
    kernels.add("RegexFullMatch", regex_full_match, since=versions("RegexFullMatch"))
    kernels.add("TfIdfVectorizer", tfidf_vectorizer, since=versions("TfIdfVectorizer"))
