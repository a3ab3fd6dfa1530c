"""Version adapters of Dropout: is_test (6 -> 7), ratio attribute -> input (10 -> 12)."""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.adapter_api import AdapterContext, AdapterRegistry


def _up_12(ctx: AdapterContext) -> None:
    """10 -> 12: in inference (no training_mode input) Dropout is the identity at both; the
    ratio moves to an input."""
    ratio = ctx.attr("ratio")
    ctx.drop_attr("ratio")
    if ratio is not None:
        ctx.set_input(1, ctx.add_constant(np.asarray(ratio, np.float32), "dropout_ratio"))


def _down_10(ctx: AdapterContext) -> None:
    if ctx.input(2):
        mode = ctx.constant_input(2, "training_mode")
        if mode is not None and bool(mode.reshape(-1)[0]):
            ctx.fail("training_mode=true has no equivalent at version 10")
    ratio = ctx.constant_input(1, "ratio") if ctx.input(1) else None
    ctx.drop_inputs_from(1)
    ctx.drop_attr("seed")  # draws only in training mode, refused above
    if ratio is not None:
        ctx.set_attr("ratio", "FLOAT", float(ratio.reshape(-1)[0]))


def _6_to_7(ctx: AdapterContext) -> None:
    if int(ctx.attr("is_test", 0)) != 1:
        ctx.fail("is_test=0 (training) has no equivalent at version 7")
    ctx.drop_attr("is_test")


def _7_to_6(ctx: AdapterContext) -> None:
    ctx.set_attr("is_test", "INT", 1)


def register(table: AdapterRegistry) -> None:
    table.add("Dropout", 10, 12, _up_12, "ratio attribute -> input")
    table.add("Dropout", 12, 10, _down_10, "ratio input -> attribute; inference only")
    table.add("Dropout", 6, 7, _6_to_7, "is_test=1 only")
    table.add("Dropout", 7, 6, _7_to_6, "is_test=1 written")
