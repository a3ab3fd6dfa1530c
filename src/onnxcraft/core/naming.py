"""Names for one model's values and nodes: unique across the model, deterministic, readable.

``build`` claims every explicit name first (inputs, ``named()``, output keys), then gives the
rest fresh names from readable bases (``matmul_0``, ``const_3``, ``Identity_1``) in the order
it emits them, so the same code always gives the same names.
"""

from __future__ import annotations

import re

__all__ = ["Namer"]

_IDENTIFIER = re.compile(r"[^0-9A-Za-z_]")


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
