"""A prepared convolution's output made with a channel of ones for the 1x1 convolutions
reading it (``onnxcraft.evaluate.ones_channels``, ``fuse=True``): the 1x1 convolution takes
its bias from the product, within a prepared convolution's rounding of the written kernel
on the value it read; every other reader sees the same values; the link is made only where
it may be, and a reader given any other array than the view its maker handed out (another
thread's, a fallback path's, a batch of several images) runs as before."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.evaluate.conv_pool import ConvThenPool
from onnxcraft.ops.conv.ones_channel import OnesChannel
from onnxcraft.ops.conv.prepared import PreparedConv
from onnxcraft.opset.ai.onnx import v21 as op
from tests.evaluate._threads import disagreements_in_threads
from tests.evaluate.test_prepared_conv import _within_rounding


def _convs(evaluator: oc.Evaluator) -> list[Any]:
    """The plan's prepared convolutions (and fused Conv-pools), those a Concat's slot wraps
    (in a closure) included."""
    found = []
    for step in evaluator._plan.steps:
        cells = getattr(step.fn, "__closure__", None) or ()
        found += [step.fn, *(c.cell_contents for c in cells)]
    return [f for f in found if isinstance(f, (PreparedConv, ConvThenPool))]


@contextmanager
def _counting(cls: type, name: str) -> Iterator[list[int]]:
    """A list that grows by one on each call of ``cls``'s method ``name``."""
    calls: list[int] = []
    method = getattr(cls, name)

    def counted(self: Any, *args: Any) -> Any:
        calls.append(1)
        return method(self, *args)

    with mock.patch.object(cls, name, counted):
        yield calls


def _first(
    rng: np.random.Generator,
    dtype: Any,
    channels: int,
    middle: int,
    *,
    kernel: int,
    relu: bool,
    bias: bool,
    pooled: bool,
) -> Any:
    """X -> Conv (``kernel``, padded to keep the size; then Relu; then a 3x3 stride-2
    MaxPool): the value the 1x1 convolution reads."""
    x = oc.arg("X", dtype, ("N", channels, "H", "W"))
    w = rng.standard_normal((middle, channels, kernel, kernel)).astype(dtype)
    b = rng.standard_normal(middle).astype(dtype) if bias else None
    pad = (kernel - 1) // 2
    first = op.Conv(x, w, b, pads=(pad,) * 4)
    if relu:
        first = op.Relu(first)
    if pooled:
        first = op.MaxPool(first, kernel_shape=(3, 3), strides=(2, 2)).Y
    return x, first


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from([np.float32, np.float64]),
    channels=st.integers(1, 6),
    middle=st.integers(1, 12),
    out_channels=st.integers(1, 12),
    kernel=st.sampled_from([1, 3]),
    relu=st.booleans(),
    bias=st.booleans(),
    pooled=st.booleans(),
    also_added=st.booleans(),
    size=st.integers(3, 14),
)
def test_within_rounding_of_the_written_kernel_on_the_value_read(
    seed: int,
    dtype: Any,
    channels: int,
    middle: int,
    out_channels: int,
    kernel: int,
    relu: bool,
    bias: bool,
    pooled: bool,
    also_added: bool,
    size: int,
) -> None:
    rng = np.random.default_rng(seed)
    x, first = _first(
        rng, dtype, channels, middle, kernel=kernel, relu=relu, bias=bias, pooled=pooled
    )
    w = rng.standard_normal((out_channels, middle, 1, 1)).astype(dtype)
    b = rng.standard_normal(out_channels).astype(dtype)
    outputs = {"Y": op.Conv(first, w, b)}
    if also_added:  # a reader that is no convolution
        outputs["S"] = op.Add(first, first)
    evaluator = oc.Evaluator(oc.build([x], outputs))
    makers = [f for f in _convs(evaluator) if f.spare is not None]
    readers = [f for f in _convs(evaluator) if isinstance(f, PreparedConv) and f.ones_from]
    assert len(makers) == 1 and len(readers) == 1 and readers[0].ones_from is makers[0].spare
    image = rng.standard_normal((1, channels, size, size)).astype(dtype)
    with _counting(PreparedConv, "_ones_image") as ones, _counting(ConvThenPool, "_run") as phases:
        got = evaluator.run({"X": image})
    # a fused Conv-pool makes the channel of ones on its phases' path only (the others run
    # the two kernels as written, whose output the 1x1 convolution then reads as before)
    assert len(ones) == (1 if not pooled or phases else 0)
    # the value read, made alone by the same kernels (a graph output: no channel of ones)
    read = oc.Evaluator(oc.build([x], {"F": first})).run({"X": image})["F"]
    _within_rounding(got["Y"], read, w, b, {})
    if also_added:
        np.testing.assert_array_equal(got["S"], read + read)


def test_the_link_hands_out_a_view_and_knows_it_again() -> None:
    link = OnesChannel()
    view = link.array((1, 3, 4, 5), np.float32)
    assert view is not None and view.shape == (1, 3, 4, 5) and view.flags.c_contiguous
    whole = link.extended(view)
    assert whole is not None and whole.shape == (1, 4, 4, 5)
    assert (whole[:, 3] == 1).all() and np.shares_memory(whole, view)
    assert link.extended(view.copy()) is None  # the same values elsewhere
    assert link.extended(whole[:, 1:]) is None  # another view of the same array
    assert link.extended(view[:, :, :2]) is None
    assert OnesChannel().extended(view) is None  # another link
    assert link.array((2, 3, 4, 5), np.float32) is None  # several images: strided, not made
    assert link.extended(view) is not None  # the last view made is still this one

    seen: list[Any] = []
    thread = threading.Thread(target=lambda: seen.append(link.extended(view)))
    thread.start()
    thread.join()
    assert seen == [None]  # another thread's runs hand out their own views


def _bottleneck(rng: np.random.Generator, channels: int = 16, middle: int = 4) -> Any:
    """ResNet's bottleneck: 1x1 Relu, 3x3 Relu, 1x1, the residual Add and Relu, then a
    1x1 convolution reading the block's output."""
    x = oc.arg("X", np.float32, ("N", channels, "H", "W"))

    def conv(value: Any, m: int, c: int, k: int) -> Any:
        w = rng.standard_normal((m, c, k, k)).astype(np.float32) / np.sqrt(c * k * k)
        b = rng.standard_normal(m).astype(np.float32)
        return op.Conv(value, w, b, pads=((k - 1) // 2,) * 4)

    y = op.Relu(conv(op.Relu(conv(x, middle, channels, 1)), middle, middle, 3))
    block = op.Relu(op.Add(conv(y, channels, middle, 1), x))
    return oc.build([x], {"Y": op.Relu(conv(block, 2 * channels, channels, 1))})


@pytest.mark.parametrize("batch", [1, 2])
def test_a_bottleneck_takes_the_ones_at_batch_one(batch: int) -> None:
    rng = np.random.default_rng(batch)
    model = _bottleneck(rng)
    evaluator = oc.Evaluator(model)
    x = rng.standard_normal((batch, 16, 12, 12)).astype(np.float32)
    with _counting(PreparedConv, "_ones_image") as ones:
        got = evaluator.run({"X": x})["Y"]
    # the 3x3 reads the first 1x1's output, the last 1x1s the 3x3's and the block's
    assert len(ones) == (2 if batch == 1 else 0)
    want = oc.Evaluator(model, fuse=False).run({"X": x})["Y"]
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()


def test_linked_only_where_it_may_be() -> None:
    rng = np.random.default_rng(0)
    x = oc.arg("X", np.float32, ("N", 4, "H", "W"))
    made = op.Relu(op.Conv(x, rng.standard_normal((6, 4, 3, 3)).astype(np.float32)))

    def reader(**attributes: Any) -> Any:
        group = int(attributes.get("group", 1))
        w = rng.standard_normal((6, 6 // group, 1, 1)).astype(np.float32)
        return op.Conv(made, w, rng.standard_normal(6).astype(np.float32), **attributes)

    def links(outputs: dict[str, Any]) -> int:
        convs = _convs(oc.Evaluator(oc.build([x], outputs)))
        return sum(f.spare is not None for f in convs)

    assert links({"Y": reader()}) == 1
    assert links({"Y": reader(), "M": made}) == 0  # a graph output is handed out as it is
    no_bias = op.Conv(made, rng.standard_normal((6, 6, 1, 1)).astype(np.float32))
    assert links({"Y": no_bias}) == 0
    three = op.Conv(made, rng.standard_normal((6, 6, 3, 3)).astype(np.float32), pads=(1,) * 4)
    assert links({"Y": three}) == 0
    assert links({"Y": reader(strides=(2, 2))}) == 0
    assert links({"Y": reader(pads=(1, 1, 1, 1))}) == 0
    assert links({"Y": reader(group=2)}) == 0
    assert links({"Y": op.Add(reader(), reader())}) == 1  # one link, two readers


def test_threads_get_their_own_channels_of_ones() -> None:
    rng = np.random.default_rng(5)
    model = _bottleneck(rng)
    evaluator, written = oc.Evaluator(model), oc.Evaluator(model, fuse=False)
    feeds = [rng.standard_normal((b, 16, s, s)).astype(np.float32) for b, s in [(1, 9), (1, 12)]]
    feeds += [rng.standard_normal((2, 16, 10, 10)).astype(np.float32)]
    expected = [written.run({"X": x})["Y"] for x in feeds]
    feeds_by_name = [{"X": x} for x in feeds]
    assert not disagreements_in_threads(evaluator, feeds_by_name, expected)


def _conv(rng: np.random.Generator, value: Any, m: int, c: int, k: int = 1) -> Any:
    w = rng.standard_normal((m, c, k, k)).astype(np.float32) / np.sqrt(c * k * k)
    return op.Conv(value, w, rng.standard_normal(m).astype(np.float32), pads=((k - 1) // 2,) * 4)


def _fire_then_squeeze(rng: np.random.Generator) -> Any:
    """SqueezeNet: squeeze, two expands joined by a Concat, the next squeeze reading it."""
    x = oc.arg("X", np.float32, ("N", 8, "H", "W"))
    s = op.Relu(_conv(rng, x, 4, 8))
    joined = op.Concat(op.Relu(_conv(rng, s, 6, 4)), op.Relu(_conv(rng, s, 6, 4, 3)), axis=1)
    return oc.build([x], {"Y": op.Relu(_conv(rng, joined, 5, 12))})


def _dense_layer(rng: np.random.Generator) -> Any:
    """DenseNet: BatchNormalization, Relu and a 1x1 convolution after a Concat."""
    x = oc.arg("X", np.float32, ("N", 6, "H", "W"))
    joined = op.Concat(x, op.Relu(_conv(rng, x, 4, 6, 3)), axis=1)
    scale = rng.uniform(0.5, 2.0, 10).astype(np.float32)
    shift, mean = (rng.standard_normal(10).astype(np.float32) for _ in range(2))
    var = rng.uniform(0.5, 2.0, 10).astype(np.float32)
    normed = op.Relu(op.BatchNormalization(joined, scale, shift, mean, var).Y)
    return oc.build([x], {"Y": _conv(rng, normed, 7, 10)})


def _heads(rng: np.random.Generator) -> Any:
    """Inception: a Concat of two branches, read by three 1x1 heads stacked as siblings."""
    x = oc.arg("X", np.float32, ("N", 6, "H", "W"))
    joined = op.Concat(op.Relu(_conv(rng, x, 4, 6)), op.Relu(_conv(rng, x, 5, 6, 3)), axis=1)
    heads = [op.Relu(_conv(rng, joined, m, 9)) for m in (3, 4, 2)]
    return oc.build([x], {"Y": op.Concat(*heads, axis=1)})


@pytest.mark.parametrize(
    ("build", "ones_at_batch_one"),
    [(_fire_then_squeeze, 2), (_dense_layer, 1), (_heads, 1)],
    ids=["concat", "clamp", "siblings"],
)
@pytest.mark.parametrize("batch", [1, 2])
def test_concats_clamps_and_siblings_make_and_read_the_ones(
    build: Any, ones_at_batch_one: int, batch: int
) -> None:
    rng = np.random.default_rng(7)
    model = build(rng)
    evaluator = oc.Evaluator(model)
    x = rng.standard_normal(
        (batch, model.graph.input[0].type.tensor_type.shape.dim[1].dim_value, 11, 11)
    )
    x = x.astype(np.float32)
    evaluator.run({"X": x})  # a Concat learns its output's layout on the first run
    with _counting(PreparedConv, "_ones_image") as ones:
        got = evaluator.run({"X": x})["Y"]
    assert len(ones) == (ones_at_batch_one if batch == 1 else 0)
    want = oc.Evaluator(model, fuse=False).run({"X": x})["Y"]
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()
