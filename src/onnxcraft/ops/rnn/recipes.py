"""Recipes of the rnn family: strategies drawing valid nodes of RNN, GRU, LSTM, every version."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]

# Gates per cell, and the default activations of one direction.
_CELLS = {
    "RNN": (1, ["Tanh"]),
    "GRU": (3, ["Sigmoid", "Tanh"]),
    "LSTM": (4, ["Sigmoid", "Tanh", "Tanh"]),
}


@recipe
def recurrent(n: NodeDraw) -> NodeCase:
    gates, activations = _CELLS[n.spec.name]
    direction = n.choice(["forward", "reverse", "bidirectional"])
    dirs = 2 if direction == "bidirectional" else 1
    steps, batch, size, hidden = (
        n.integer(1, 3),
        n.integer(1, 2),
        n.integer(1, 3),
        n.integer(1, 3),
    )
    layout = n.integer(0, 1) if "layout" in n.attribute_names else 0

    def per_batch(*rest: int) -> tuple[int, ...]:
        # layout 1 puts the batch first: (batch, dirs, hidden) instead of (dirs, batch, hidden)
        return (batch, dirs, *rest) if layout else (dirs, batch, *rest)

    x = n.tensor(0, (batch, steps, size) if layout else (steps, batch, size), low=-1, high=1)
    w = n.tensor(1, (dirs, gates * hidden, size), low=-1, high=1)
    r = n.tensor(2, (dirs, gates * hidden, hidden), low=-1, high=1)
    optional: list[Input | None] = [
        n.tensor(3, (dirs, 2 * gates * hidden), low=-1, high=1) if n.flag() else None,
        n.ints([n.integer(1, steps) for _ in range(batch)], elem=ElementType.INT32)
        if n.flag()
        else None,
        n.tensor(5, per_batch(hidden), low=-1, high=1) if n.flag() else None,
    ]
    if n.spec.name == "LSTM":
        optional.append(n.tensor(6, per_batch(hidden), low=-1, high=1) if n.flag() else None)
        optional.append(n.tensor(7, (dirs, 3 * hidden), low=-1, high=1) if n.flag() else None)
    attrs: dict[str, Any] = {"hidden_size": hidden, "direction": direction}
    if layout:
        attrs["layout"] = layout
    if n.flag():
        attrs["activations"] = activations * dirs
    attrs.update(
        n.attrs(
            clip=st.sampled_from([None, 2.0]),
            linear_before_reset=st.sampled_from([0, 1]),
            input_forget=st.sampled_from([0, 1]),
        )
    )
    outputs = [n.flag() for _ in n.spec.outputs]
    if n.spec.outputs[1].option == "single":
        outputs[1] = True  # GRU-1 always produces Y_h
    if not any(outputs):
        outputs[0] = True
    if "output_sequence" in n.attribute_names:
        attrs["output_sequence"] = int(outputs[0])
    return n.case([x, w, r, *optional], attrs, outputs=outputs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("RNN", recurrent)
    recipes.add("GRU", recurrent)
    recipes.add("LSTM", recurrent)
