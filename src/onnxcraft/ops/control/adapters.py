"""Steps of the control-flow operators that need an adapter and have none yet."""

from __future__ import annotations

from onnxcraft.ops.adapter_api import AdapterRegistry


def register(table: AdapterRegistry) -> None:
    table.changed("Scan", 8, 9, "version 9 dropped the batch axis and sequence_lens")
