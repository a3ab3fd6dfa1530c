"""Names for one model's values and nodes: unique across the model, deterministic, readable.

``build`` claims every explicit name first (inputs, ``named()``, output keys), then gives the
rest fresh names from readable bases (``matmul_0``, ``const_3``, ``Identity_1``) in the order
it emits them, so the same code always gives the same names.
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

    def claim(self, name: str) -> bool:
        if name in self.used:
            return False
        self.used.add(name)
        return True

    def fresh(self, base: str) -> str:
        base = _IDENTIFIER.sub("_", base) or "v"
        if base[0].isdigit():
            base = "_" + base
        n = self.counters.get(base, 0)
        while True:
            candidate = f"{base}_{n}"
            n += 1
            if candidate not in self.used:
                self.counters[base] = n
                self.used.add(candidate)
                return candidate
