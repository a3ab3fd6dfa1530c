"""One table keyed by the operator identifier (domain, op_type, since_version).

Inference rules, evaluator kernels and the VJP rules of ``Gradient`` are each such a table,
filled by the operator families of :mod:`onnxcraft.ops` (one ``register(table)`` per part):
this module holds the keying and the lookup with its every-version fallback.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

__all__ = ["ALL_VERSIONS", "OpKey", "OpTable"]

# Register an entry with since=ALL_VERSIONS when it handles every version of the operator.
ALL_VERSIONS = 0

OpKey = tuple[str, str, int]
T = TypeVar("T")


class OpTable(Generic[T]):
    """Entries keyed by (domain, op_type, since_version); ``what`` names them in errors."""

    what = "entry"

    def __init__(self) -> None:
        self._entries: dict[OpKey, T] = {}

    def _put(self, domain: str, op_type: str, since: int | Iterable[int], value: T) -> None:
        """Store ``value`` for every listed version; a key registered twice is an error."""
        versions = (since,) if isinstance(since, int) else tuple(since)
        for version in versions:
            key = (domain, op_type, version)
            if key in self._entries:
                raise ValueError(
                    f"{self.what} for {domain or 'ai.onnx'}::{op_type}@{version} is "
                    f"registered twice"
                )
            self._entries[key] = value

    def lookup(self, domain: str, op_type: str, since_version: int) -> T | None:
        """The entry of that exact version, else the one registered for every version."""
        found = self._entries.get((domain, op_type, since_version))
        if found is None:
            found = self._entries.get((domain, op_type, ALL_VERSIONS))
        return found

    def keys(self) -> list[OpKey]:
        return sorted(self._entries)

    def __iter__(self) -> Iterator[OpKey]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries
