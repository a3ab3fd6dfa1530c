"""Names for one model's values and nodes: unique across the model, deterministic, readable.

``build`` claims every explicit name first (inputs, ``named()``, output keys), then gives the
rest fresh names from readable bases in the order it emits them, so the same code always
gives the same names: a node output is named after its operator (``matmul0``, ``add3``,
``topk_indices0``), a constant ``c0``, ``c1`` ...; nodes get names (``MatMul0``) only when
asked for (``build(node_names=True)``). The names are as short as a hand-written
onnx.helper model's, so the file is no larger.
"""

from __future__ import annotations

import re

from onnxcraft.errors import ArgumentError

__all__ = ["Namer", "check_name", "check_text"]

_IDENTIFIER = re.compile(r"[^0-9A-Za-z_]")


def check_name(what: str, name: object) -> str:
    """A user-given value name: a non-empty str that a model file can hold (UTF-8)."""
    if not isinstance(name, str) or not name:
        raise ArgumentError(f"{what}: expected a non-empty str, got {name!r}")
    return check_text(what, name)


def check_text(what: str, text: object) -> str:
    """A str a model file can hold: protobuf writes strings as UTF-8 (no lone surrogates)."""
    if not isinstance(text, str):
        raise ArgumentError(f"{what}: expected a str, got {type(text).__name__} {text!r}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ArgumentError(
            f"{what}: {text!r} cannot be written to a model (it is not valid UTF-8)"
        ) from None
    return text


class Namer:
    """Unique names across the whole model (subgraphs included), deterministic and readable."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.counters: dict[str, int] = {}
        # base asked for -> the identifier it is written as, and the prefix of its names
        self.bases: dict[str, tuple[str, str]] = {}

    def claim(self, name: str) -> bool:
        if name in self.used:
            return False
        self.used.add(name)
        return True

    def fresh(self, base: str) -> str:
        found = self.bases.get(base)
        if found is None:  # a model asks for a handful of bases, each many times
            clean = _IDENTIFIER.sub("_", base) or "v"
            if clean[0].isdigit():
                clean = "_" + clean
            # ``mul0``, ``topk_values2``; a base that ends in a digit keeps a separator
            # (``conv2_0``), so that two bases never make the same name.
            found = self.bases[base] = (clean, clean + "_" if clean[-1].isdigit() else clean)
        clean, joined = found
        n = self.counters.get(clean, 0)
        used = self.used
        while True:
            candidate = f"{joined}{n}"
            n += 1
            if candidate not in used:
                self.counters[clean] = n
                used.add(candidate)
                return candidate
