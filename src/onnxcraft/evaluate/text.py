"""Kernels for string tensors: StringNormalizer, StringConcat, StringSplit, RegexFullMatch.

RegexFullMatch uses Python's ``re``; patterns are RE2 syntax in the standard, and the two agree
on the common subset (classes, quantifiers, groups, anchors). RE2-only constructs such as
``\\pL`` raise a clear error instead of matching differently.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from onnxcraft.evaluate._versions import versions
from onnxcraft.evaluate.common import fail
from onnxcraft.evaluate.registry import KernelRegistry

__all__ = ["register"]


def _strings(x: Any) -> np.ndarray:
    array = np.asarray(x)
    if array.dtype != object and array.dtype.kind not in "US":
        fail("StringOp", f"expected a string tensor, got {array.dtype}")
    return array.astype(object)


def string_normalizer(x: Any, *, case_change_action: str = "NONE", is_case_sensitive: int = 0,
                      locale: str | None = None, stopwords: list[str] | None = None) -> np.ndarray:
    array = _strings(x)
    if array.ndim == 2 and array.shape[0] != 1:
        fail("StringNormalizer", f"a 2-D input must have shape [1, C], got {list(array.shape)}")
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
        fail("StringNormalizer", f"case_change_action must be LOWER, UPPER or NONE, got {case_change_action!r}")
    if not words:
        words = [""]  # an input that loses every word becomes a single empty string
    result = np.empty(len(words), dtype=object)
    result[:] = words
    return result.reshape((1, -1)) if array.ndim == 2 else result


def string_concat(x: Any, y: Any) -> np.ndarray:
    a, b = np.broadcast_arrays(_strings(x), _strings(y))
    out = np.empty(a.shape, dtype=object)
    out.reshape(-1)[:] = [p + q for p, q in zip(a.reshape(-1), b.reshape(-1))]
    return out


def string_split(x: Any, *, delimiter: str | None = None, maxsplit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    array = _strings(x)
    limit = -1 if maxsplit is None else maxsplit
    parts = [s.split(delimiter or None, limit) if delimiter else s.split(None, limit)
             for s in array.reshape(-1)]
    width = max((len(p) for p in parts), default=0)
    out = np.full((len(parts), width), "", dtype=object)
    for i, p in enumerate(parts):
        out[i, : len(p)] = p
    counts = np.array([len(p) for p in parts], dtype=np.int64).reshape(array.shape)
    return out.reshape(array.shape + (width,)), counts


def regex_full_match(x: Any, *, pattern: str) -> np.ndarray:
    if re.search(r"\\[pP]\{?\w", pattern):
        fail("RegexFullMatch", f"pattern {pattern!r} uses an RE2 Unicode class not supported here")
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        fail("RegexFullMatch", f"invalid pattern {pattern!r}: {exc}")
    array = _strings(x)
    flat = [compiled.fullmatch(s) is not None for s in array.reshape(-1)]
    return np.array(flat, dtype=bool).reshape(array.shape)


def register(kernels: KernelRegistry) -> None:
    kernels.add("StringNormalizer", string_normalizer, since=versions("StringNormalizer"))
    kernels.add("StringConcat", string_concat, since=versions("StringConcat"))
    kernels.add("StringSplit", string_split, since=versions("StringSplit"))
    kernels.add("RegexFullMatch", regex_full_match, since=versions("RegexFullMatch"))
