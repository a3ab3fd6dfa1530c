"""VJP rules of the Gather family: Gather, GatherElements, GatherND.

Gathering copies elements of the data; the cotangent of every copy is added back onto its
source (indices that repeat accumulate). The indices get no gradient.
"""

from __future__ import annotations

from onnxcraft.ops.vjp_api import VjpRegistry
from onnxcraft.ops.vjp_common import by_provenance

__all__ = ["register"]


def register(rules: VjpRegistry) -> None:
    for name in ("Gather", "GatherElements", "GatherND"):
        rules.add(name, by_provenance(0))
