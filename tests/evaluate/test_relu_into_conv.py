"""A prepared Conv's Relu moved into the prepared Conv that alone reads it
(``onnxcraft.evaluate.relu_into_conv``, ``fuse=True``): the same bits as the plan without
the move, NaN, infinities and signed zeros included, and the move taken only where it may
be."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.evaluate import fusion
from onnxcraft.ops.conv.prepared import PreparedConv
from onnxcraft.opset.ai.onnx import v21 as op


def _dense_layer(
    rng: np.random.Generator,
    channels: int,
    middle: int,
    growth: int,
    *,
    dtype: Any = np.float32,
    kernel: int = 3,
    bias: bool = True,
    joined: bool = True,
) -> Any:
    """DenseNet's layer: a 1x1 Conv of ``middle`` filters with its Relu, a ``kernel`` x
    ``kernel`` Conv of ``growth`` filters (padded to keep the size), joined to X by a
    Concat (or a graph output of its own)."""
    x = oc.arg("X", dtype, ("N", channels, "H", "W"))
    w1 = rng.standard_normal((middle, channels, 1, 1)).astype(dtype)
    b1 = rng.standard_normal(middle).astype(dtype) if bias else None
    w2 = rng.standard_normal((growth, middle, kernel, kernel)).astype(dtype)
    b2 = rng.standard_normal(growth).astype(dtype) if bias else None
    pad = (kernel - 1) // 2
    y = op.Conv(op.Relu(op.Conv(x, w1, b1)), w2, b2, pads=(pad,) * 4)
    return oc.build([x], {"Y": op.Concat(x, y, axis=1) if joined else y})


def _conv_functions(evaluator: oc.Evaluator) -> list[Any]:
    """The plan's steps' functions, those a Concat's slot wraps (in a closure) included."""
    found = []
    for step in evaluator._plan.steps:
        cells = getattr(step.fn, "__closure__", None) or ()
        found += [f for f in (step.fn, *(c.cell_contents for c in cells)) if callable(f)]
    return [f for f in found if isinstance(f, PreparedConv)]


def _moved(evaluator: oc.Evaluator) -> int:
    """How many prepared Convs of the plan took a Relu in."""
    return sum(conv.input_relu is not None for conv in _conv_functions(evaluator))


def _unmoved(model: Any, monkeypatch: pytest.MonkeyPatch) -> oc.Evaluator:
    with monkeypatch.context() as patch:
        patch.setattr(fusion, "relu_into_next_conv", lambda steps, kept, readers: steps)
        return oc.Evaluator(model)


def _specials(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Normal values with NaN, infinities and zeros of both signs sprinkled in."""
    x: np.ndarray = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    picks = rng.integers(0, max(1, flat.size), size=flat.size // 7)
    flat[picks] = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype), picks.size)
    return x


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    middle=st.integers(4, 24),
    dtype=st.sampled_from([np.float32, np.float64]),
    bias=st.booleans(),
    joined=st.booleans(),
    batch=st.integers(1, 3),
    size=st.tuples(st.integers(1, 9), st.integers(1, 9)),
    specials=st.booleans(),
)
def test_the_same_bits_as_without_the_move(
    seed: int,
    middle: int,
    dtype: Any,
    bias: bool,
    joined: bool,
    batch: int,
    size: tuple[int, int],
    specials: bool,
) -> None:
    rng = np.random.default_rng(seed)
    growth = max(1, middle // 4)  # (at most a quarter: the taps layout's shape)
    model = _dense_layer(rng, 6, middle, growth, dtype=dtype, bias=bias, joined=joined)
    moved = oc.Evaluator(model)
    assert _moved(moved) == 1
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fusion, "relu_into_next_conv", lambda steps, kept, readers: steps)
        unmoved = oc.Evaluator(model)
    assert _moved(unmoved) == 0
    shape = (batch, 6, *size)
    feed = _specials(rng, shape, dtype) if specials else rng.standard_normal(shape).astype(dtype)
    got, want = moved.run({"X": feed})["Y"], unmoved.run({"X": feed})["Y"]
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)  # (NaN where NaN, -0.0 and 0.0 both zero)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    written = oc.evaluate(model, {"X": feed}, fuse=False)["Y"]
    finite = np.isfinite(written)
    assert np.array_equal(finite, np.isfinite(got))
    scale = float(np.abs(written[finite]).max(initial=0.0)) + 1.0
    bound = (1e-5 if dtype == np.float32 else 1e-13) * scale  # test_fusion.py's bound
    assert float(np.abs(got[finite] - written[finite]).max(initial=0.0)) <= bound


def test_another_layout_clamps_its_input_first(monkeypatch: pytest.MonkeyPatch) -> None:
    # Four channels of a 3x3 kernel are too few terms for the taps layout (the im2col runs):
    # the moved Relu clamps the input in place before the convolution.
    rng = np.random.default_rng(5)
    model = _dense_layer(rng, 3, 4, 1)
    moved, unmoved = oc.Evaluator(model), _unmoved(model, monkeypatch)
    assert _moved(moved) == 1
    for batch in (1, 2):
        feed = {"X": _specials(rng, (batch, 3, 6, 5), np.float32)}
        np.testing.assert_array_equal(moved.run(feed)["Y"], unmoved.run(feed)["Y"])


def test_densenet_sized_layers(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(6)
    model = _dense_layer(rng, 96, 128, 32)
    moved, unmoved = oc.Evaluator(model), _unmoved(model, monkeypatch)
    assert _moved(moved) == 1
    for batch, size in ((1, 14), (2, 7)):
        feed = {"X": rng.standard_normal((batch, 96, size, size)).astype(np.float32)}
        np.testing.assert_array_equal(moved.run(feed)["Y"], unmoved.run(feed)["Y"])


def test_left_where_it_was() -> None:
    rng = np.random.default_rng(7)
    x = oc.arg("X", np.float32, ("N", 8, "H", "W"))

    def conv(source: oc.Var, width: int, kernel: int = 1, **attributes: Any) -> oc.Var:
        channels = 8 if source is x else 16
        w = rng.standard_normal((width, channels, kernel, kernel)).astype(np.float32)
        return op.Conv(source, w, **attributes)

    head = op.Relu(conv(x, 16))
    twice = oc.build([x], {"A": conv(head, 2, 3, pads=(1,) * 4), "B": op.Neg(head)})
    kept = oc.build([x], {"A": conv(head, 2, 3, pads=(1,) * 4), "R": head})
    pointwise = oc.build([x], {"A": conv(head, 2)})  # a 1x1 Conv copies nothing
    wide = oc.build([x], {"A": conv(head, 8, 3, pads=(1,) * 4)})  # half the channels
    strided = oc.build([x], {"A": conv(head, 2, 3, strides=(2, 2))})
    no_relu = oc.build([x], {"A": conv(conv(x, 16), 2, 3, pads=(1,) * 4)})
    for model in (twice, kept, pointwise, wide, strided, no_relu):
        assert _moved(oc.Evaluator(model)) == 0
        feed = {"X": rng.standard_normal((2, 8, 6, 6)).astype(np.float32)}
        fused, written = oc.evaluate(model, feed), oc.evaluate(model, feed, fuse=False)
        for name, value in written.items():
            assert float(np.abs(fused[name] - value).max()) <= 1e-5 * (np.abs(value).max() + 1)
