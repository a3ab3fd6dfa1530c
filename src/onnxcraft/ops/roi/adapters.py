"""Version adapters of RoiAlign: the coordinate mode version 10 implies (16 <-> 10)."""

from __future__ import annotations

from onnxcraft.ops.adapter_api import AdapterContext, AdapterRegistry


def _up(ctx: AdapterContext) -> None:
    """Version 10 maps coordinates as version 16's output_half_pixel; 16 defaults to half_pixel."""
    ctx.set_attr("coordinate_transformation_mode", "STRING", "output_half_pixel")


def _down(ctx: AdapterContext) -> None:
    mode = ctx.attr("coordinate_transformation_mode", "half_pixel")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if mode != "output_half_pixel":
        ctx.fail(f"coordinate_transformation_mode={mode!r}: version 10 is output_half_pixel")
    ctx.drop_attr("coordinate_transformation_mode")


def register(table: AdapterRegistry) -> None:
    table.add("RoiAlign", 10, 16, _up, "output_half_pixel written (version 10's mapping)")
    table.add("RoiAlign", 16, 10, _down, "output_half_pixel only")
