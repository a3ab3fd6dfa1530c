"""Version adapters of the comparisons and logical operators: legacy broadcast (1 <-> 7)."""

from __future__ import annotations

from onnxcraft.ops.adapter_api import AdapterRegistry
from onnxcraft.ops.arithmetic.adapters import LOGICAL_LEGACY, broadcast_down, broadcast_up


def register(table: AdapterRegistry) -> None:
    for op in LOGICAL_LEGACY:
        table.add(op, 1, 7, broadcast_up, "broadcast/axis -> numpy broadcasting")
        table.add(op, 7, 1, broadcast_down, "numpy broadcasting -> broadcast=1 (B a suffix)")
