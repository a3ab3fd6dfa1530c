"""Version adapters of DFT: the axis attribute became an input (17 <-> 20)."""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.adapter_api import AdapterContext, AdapterRegistry


def _up(ctx: AdapterContext) -> None:
    """17 -> 20: axis attribute (default 1) -> axis input (whose default is -2)."""
    axis = int(ctx.attr("axis", 1))
    ctx.drop_attr("axis")
    ctx.set_input(2, ctx.add_constant(np.asarray(axis, np.int64), "dft_axis"))


def _down(ctx: AdapterContext) -> None:
    axis = ctx.constant_input(2, "axis") if ctx.input(2) else np.asarray(-2)
    assert axis is not None
    ctx.drop_inputs_from(2)
    ctx.set_attr("axis", "INT", int(np.asarray(axis).reshape(-1)[0]))


def register(table: AdapterRegistry) -> None:
    table.add("DFT", 17, 20, _up, "axis attribute -> input")
    table.add("DFT", 20, 17, _down, "axis input (a constant) -> attribute")
