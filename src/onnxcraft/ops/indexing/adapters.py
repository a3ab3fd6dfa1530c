"""Version adapters of Scatter (deprecated at 11) and the reductions added to the scatters."""

from __future__ import annotations

from onnxcraft.ops.adapter_api import AdapterContext, AdapterRegistry, refuse_value


def _scatter_to_elements(ctx: AdapterContext) -> None:
    node = ctx.node
    attributes = {"axis": ("INT", int(ctx.attr("axis", 0)))}
    ctx.emit("ScatterElements", list(node.inputs), list(node.outputs), attributes, opset=11)
    ctx.remove()


def register(table: AdapterRegistry) -> None:
    table.add("Scatter", 9, 11, _scatter_to_elements, "deprecated at 11: ScatterElements")
    for op in ("ScatterElements", "ScatterND"):
        table.add(op, 18, 16, refuse_value("reduction", ["max", "min"], "is new in version 18"),
                  "max/min reductions refused")  # fmt: skip
