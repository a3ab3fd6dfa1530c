"""Version adapters of QuantizeLinear/DequantizeLinear: per-axis scales (13 -> 10)."""

from __future__ import annotations

from onnxcraft.ops.adapter_api import AdapterContext, AdapterRegistry


def _per_tensor_only(ctx: AdapterContext) -> None:
    """13 -> 10: version 10 takes one scale (and zero point) for the whole tensor."""
    for index in (1, 2):
        name = ctx.input(index)
        if not name:
            continue
        shape = ctx.shape(name)
        if shape != ():
            ctx.fail(f"input {index} is not a scalar, and version 10 takes one value")
    ctx.drop_attr("axis")


def register(table: AdapterRegistry) -> None:
    for op in ("QuantizeLinear", "DequantizeLinear"):
        table.add(op, 13, 10, _per_tensor_only, "per-tensor scale and zero point only")
