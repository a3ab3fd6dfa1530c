"""A function attribute referenced inside an ``@oc.function`` body."""

from __future__ import annotations

from typing import Any

__all__ = ["AttrRef"]


class AttrRef:
    """A function attribute inside a function body: its name and the traced call's value."""

    __slots__ = ("name", "value")

    def __init__(self, name: str, value: Any) -> None:
        self.name = name
        self.value = value

    def __repr__(self) -> str:
        return f"AttrRef({self.name!r}, {self.value!r})"
