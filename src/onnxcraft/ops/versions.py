"""The since_versions of an operator, from the specs (so kernels cover exactly them)."""

from __future__ import annotations

from onnxcraft import specs

__all__ = ["versions", "versions_between"]


def versions(op_type: str, domain: str = "") -> tuple[int, ...]:
    return specs.versions(op_type, domain)


def versions_between(
    op_type: str, first: int, last: int | None = None, domain: str = ""
) -> tuple[int, ...]:
    """The since_versions v with first <= v (<= last)."""
    return tuple(v for v in versions(op_type, domain) if v >= first and (last is None or v <= last))
