"""Python identifiers for the values, functions and modules of a generated module.

Every ONNX name becomes a readable, valid, unique Python identifier: characters Python does
not take become ``_``, names that are keywords, builtins or the module's own imports get a
suffix, and one allocator serves the whole module, so that a nested body function never
shadows a name of the code around it.
"""

from __future__ import annotations

import builtins
import keyword
import re

__all__ = ["Identifiers", "is_plain_identifier"]

# Names the generated module itself binds or calls: values must never take them.
_RESERVED = frozenset(
    {"np", "oc", "Path", "numpy_dtype", "build_model", "main", "weights", "WEIGHTS"}
    | set(dir(builtins))
)
_NOT_IDENTIFIER = re.compile(r"[^0-9A-Za-z_]+")
_LONG = 32  # a longer name keeps its last words, up to _TAIL characters
_TAIL = 24


def is_plain_identifier(text: str) -> bool:
    """An ASCII Python identifier that is no keyword (a parameter name Python accepts)."""
    return text.isascii() and text.isidentifier() and not keyword.iskeyword(text)


class Identifiers:
    """Hands out unique identifiers; ``taken`` are names the module binds otherwise."""

    def __init__(self, taken: set[str] | None = None) -> None:
        self._used: set[str] = set(_RESERVED) | (taken or set())
        self._counts: dict[str, int] = {}

    def reserve(self, name: str) -> None:
        self._used.add(name)

    def fresh(self, onnx_name: str, fallback: str = "v") -> str:
        """A new identifier that reads like ``onnx_name``."""
        base = _sanitize(onnx_name, fallback)
        candidate = base
        while candidate in self._used or keyword.iskeyword(candidate):
            count = self._counts.get(base, 0) + 1
            self._counts[base] = count
            candidate = f"{base}_{count}"
        self._used.add(candidate)
        return candidate


def _sanitize(name: str, fallback: str) -> str:
    text = _NOT_IDENTIFIER.sub("_", name).strip("_").lower()
    if len(text) > _LONG:
        # Generated names carry long prefixes (the expanded function, the scope); the last
        # words tell values apart: "..._expanded_function_N_then" -> "function_n_then".
        words = [w for w in text.split("_") if w]
        tail: list[str] = []
        while words and not words[-1][0].isdigit() and len("_".join([words[-1], *tail])) <= _TAIL:
            tail.insert(0, words.pop())
        text = "_".join(tail) if tail else text[-_TAIL:].strip("_")
    if not text:
        text = fallback
    if text[0].isdigit():
        text = f"{fallback}_{text}"
    if keyword.iskeyword(text) or keyword.issoftkeyword(text):
        text = f"{text}_"
    return text
