"""Recipes of the signal family: strategies drawing valid nodes of DFT, STFT, HannWindow,
HammingWindow, BlackmanWindow, MelWeightMatrix, every version."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import FLOATS, NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


@recipe
def dft(n: NodeDraw) -> NodeCase:
    complex_input = n.flag()
    signal = [n.integer(1, 4) for _ in range(n.integer(1, 2))]
    shape = (n.integer(1, 2), *signal, 2 if complex_input else 1)
    rank = len(shape)
    axis = n.integer(1, rank - 2)
    x = n.tensor(0, shape, low=-2, high=2)
    inverse = n.integer(0, 1)
    attrs: dict[str, Any] = {"inverse": inverse}
    if not complex_input and not inverse and n.flag():
        attrs["onesided"] = 1
    length = n.scalar(n.integer(1, 5), n.elem("T2")) if n.flag() else None
    if n.version < 20:
        attrs["axis"] = axis
        return n.case([x, length], attrs)
    written = axis - rank if n.flag() else axis
    axis_in = n.scalar(written, ElementType.INT64) if written != -2 or n.flag() else None
    return n.case([x, length, axis_in], attrs)


@recipe
def stft(n: NodeDraw) -> NodeCase:
    complex_input = n.flag()
    length = n.integer(1, 6)
    frame = n.integer(1, length)
    x = n.tensor(0, (n.integer(1, 2), length, 2 if complex_input else 1), low=-2, high=2)
    step = n.scalar(n.integer(1, 3), n.elem("T2"))
    form = n.choice(["window", "length", "both"])
    window = n.tensor(2, (frame,), low=0, high=1) if form != "length" else None
    frame_length = n.scalar(frame, n.elem("T2")) if form != "window" else None
    attrs = {"onesided": 0} if complex_input else n.attrs(onesided=st.sampled_from([0, 1]))
    return n.case([x, step, window, frame_length], attrs)


@recipe
def window_function(n: NodeDraw) -> NodeCase:
    size = n.scalar(n.integer(0, 5), n.elem("T1"))
    attrs = n.attrs(periodic=st.sampled_from([0, 1]))
    target = n.elem("T2")
    if target != ElementType.FLOAT or n.flag():
        attrs["output_datatype"] = int(target)
    return n.case([size], attrs)


@recipe
def mel_weight_matrix(n: NodeDraw) -> NodeCase:
    index = n.elem("T1")
    edges = n.elem("T2", only=FLOATS)
    rate = 8000
    inputs = [
        n.scalar(n.integer(1, 4), index),
        n.scalar(n.integer(4, 16), index),
        n.scalar(rate, index),
        n.scalar(0, edges),
        n.scalar(n.choice([1000, 4000]), edges),
    ]
    attrs: dict[str, Any] = {}
    target = n.elem("T3")
    if target != ElementType.FLOAT or n.flag():
        attrs["output_datatype"] = int(target)
    return n.case(inputs, attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("DFT", dft)
    recipes.add("STFT", stft)
    recipes.add("HannWindow", window_function)
    recipes.add("HammingWindow", window_function)
    recipes.add("BlackmanWindow", window_function)
    recipes.add("MelWeightMatrix", mel_weight_matrix)
