"""What a graph sees while it is checked: its own definitions and those of enclosing graphs."""

from __future__ import annotations

from dataclasses import dataclass, field

from onnxcraft.types import ValueType

__all__ = ["Defined", "Scope"]


@dataclass
class Defined:
    """The values defined so far in one graph (or function body), and their known types."""

    names: set[str] = field(default_factory=set)
    types: dict[str, ValueType | None] = field(default_factory=dict)


@dataclass
class Scope:
    """What a graph or function body sees: outer values, imports, function attributes."""

    chain: tuple[Defined, ...]  # the enclosing graphs' definitions, outermost first
    opsets: dict[str, int]
    function_attrs: frozenset[str] | None = None  # None: not inside a function body
    top: bool = False

    def has(self, name: str) -> bool:
        return any(name in defined.names for defined in self.chain)

    def type_of(self, name: str) -> ValueType | None:
        for defined in reversed(self.chain):
            if name in defined.types:
                return defined.types[name]
        return None

    def inner(self, defined: Defined) -> Scope:
        """The scope of a subgraph of a node of the graph whose definitions are ``defined``."""
        return Scope((*self.chain, defined), self.opsets, self.function_attrs)
