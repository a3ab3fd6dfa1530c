"""Prepared Convs reading one value alike, stacked into one product
(``onnxcraft.evaluate.sibling_convs``, ``fuse=True``), against the nodes as written
(``fuse=False``) and against the same convolutions run one by one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.errors import OnnxcraftError
from onnxcraft.evaluate import fusion
from onnxcraft.evaluate.sibling_convs import SiblingConv
from onnxcraft.opset.ai.onnx import v21 as op
from tests.evaluate._threads import disagreements_in_threads

RELATIVE = {np.float32: 1e-5, np.float64: 1e-13}  # test_fusion.py's bound


def _module(
    rng: np.random.Generator,
    widths: list[int],
    *,
    channels: int = 5,
    dtype: type = np.float32,
    kernel: int = 1,
    conv: dict[str, Any] | None = None,
    bias: bool = True,
    relu: bool = True,
    joined: bool = True,
) -> Any:
    """An Inception-like module: Convs of ``widths`` output channels on X and a MaxPool
    branch (3x3, its 1x1 Conv), the branches joined by a Concat (or each read by a Neg)."""
    x = oc.arg("X", dtype, ("N", channels, "H", "W"))
    conv = conv or {}

    def head(source: oc.Var, width: int, size: int, **attributes: Any) -> oc.Var:
        w = rng.standard_normal((width, channels, size, size))  # (X and the pool alike)
        b = rng.standard_normal(width).astype(dtype) if bias else None
        y = op.Conv(source, w.astype(dtype), b, **attributes)
        return op.Relu(y) if relu else y

    strides = conv.get("strides", (1, 1))
    pads = [p + (3 - kernel) // 2 for p in conv.get("pads", (0, 0, 0, 0))]  # (the heads' size)
    pooled = op.MaxPool(x, kernel_shape=(3, 3), strides=strides, pads=pads).Y
    heads = [head(x, width, kernel, **conv) for width in widths]
    heads.append(head(pooled, 2, 1))
    if joined:
        return oc.build([x], {"Y": op.Concat(*heads, axis=1)})
    return oc.build([x], {f"Y{i}": op.Neg(h) for i, h in enumerate(heads)})


def _stacked(model: Any) -> int:
    """How many steps of the prepared plan are stacked ones (a step whose output a Concat
    takes in place runs its function through a closure: found in the closure's cells)."""
    found = 0
    for step in oc.Evaluator(model)._plan.steps:
        cells = getattr(step.fn, "__closure__", None) or ()
        functions = [step.fn, *(cell.cell_contents for cell in cells)]
        found += any(isinstance(fn, SiblingConv) for fn in functions)
    return found


def _unstacked(model: Any, monkeypatch: pytest.MonkeyPatch) -> oc.Evaluator:
    with monkeypatch.context() as patch:
        patch.setattr(fusion, "stack_sibling_convs", lambda steps, kept: steps)
        return oc.Evaluator(model)


def _assert_close(model: Any, feed: np.ndarray, dtype: type) -> None:
    fused = oc.evaluate(model, {"X": feed})
    written = oc.evaluate(model, {"X": feed}, fuse=False)
    assert fused.keys() == written.keys()
    for name, value in written.items():
        assert fused[name].dtype == value.dtype and fused[name].shape == value.shape
        scale = float(np.abs(value).max(initial=0.0)) + 1.0
        assert float(np.abs(fused[name] - value).max(initial=0.0)) <= RELATIVE[dtype] * scale


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    widths=st.lists(st.integers(1, 9), min_size=2, max_size=4),
    channels=st.integers(1, 12),
    dtype=st.sampled_from([np.float32, np.float64]),
    kernel=st.sampled_from([1, 3]),
    strides=st.sampled_from([1, 2]),
    pads=st.integers(0, 1),
    bias=st.booleans(),
    relu=st.booleans(),
    joined=st.booleans(),
    batch=st.integers(0, 3),
    size=st.tuples(st.integers(3, 11), st.integers(3, 11)),
)
def test_within_rounding_of_as_written(
    seed: int,
    widths: list[int],
    channels: int,
    dtype: type,
    kernel: int,
    strides: int,
    pads: int,
    bias: bool,
    relu: bool,
    joined: bool,
    batch: int,
    size: tuple[int, int],
) -> None:
    rng = np.random.default_rng(seed)
    conv = {"strides": (strides, strides), "pads": (pads,) * 4}
    model = _module(
        rng,
        widths,
        channels=channels,
        dtype=dtype,
        kernel=kernel,
        conv=conv,
        bias=bias,
        relu=relu,
        joined=joined,
    )
    assert _stacked(model) == len(widths)
    feed = rng.standard_normal((batch, channels, *size)).astype(dtype)
    _assert_close(model, feed, dtype)


def test_the_values_of_the_convolutions_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each value is one weight row's dot product with one input column either way: OpenBLAS
    # gives the same bits here (Inception's widths, batches 1 and 3), checked within the
    # prepared convolutions' own rounding so as not to test OpenBLAS's blocking.
    rng = np.random.default_rng(7)
    model = _module(rng, [64, 96, 16], channels=192)
    stacked, alone = oc.Evaluator(model), _unstacked(model, monkeypatch)
    for batch in (1, 3):
        feed = {"X": rng.standard_normal((batch, 192, 9, 9)).astype(np.float32)}
        _assert_near(stacked.run(feed)["Y"], alone.run(feed)["Y"])


def _assert_near(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype
    assert float(np.abs(got - want).max()) <= 1e-6 * float(np.abs(want).max())


def test_left_as_written() -> None:
    rng = np.random.default_rng(1)
    x = oc.arg("X", np.float32, ("N", 4, "H", "W"))

    def conv(width: int, **attributes: Any) -> oc.Var:
        w = rng.standard_normal((width, 4 // attributes.get("group", 1), 1, 1))
        return op.Conv(x, w.astype(np.float32), **attributes)

    one = conv(3)
    kept = oc.build([x], {"A": one, "B": op.Neg(conv(2))})  # a graph output is its own array
    strides = oc.build([x], {"A": op.Neg(one), "B": op.Neg(conv(2, strides=(2, 2)))})
    grouped = oc.build([x], {"A": op.Neg(conv(2, group=2)), "B": op.Neg(conv(4, group=2))})
    clamped = oc.build([x], {"A": op.Neg(one), "B": op.Neg(op.Relu(conv(2)))})
    added = oc.build([x], {"A": op.Neg(one), "B": op.Add(conv(4), x)})  # (the Add rides along)
    for model in (kept, strides, grouped, clamped, added):
        assert _stacked(model) == 0
        _assert_close(model, rng.standard_normal((2, 4, 5, 6)).astype(np.float32), np.float32)


def test_another_input_runs_its_own_convolution() -> None:
    # A plan gives every stacked step the same value; a step called with another anyway
    # (or before the product was made) convolves it alone.
    rng = np.random.default_rng(2)
    model = _module(rng, [3, 4, 2], channels=6, joined=False)
    steps = [s.fn for s in oc.Evaluator(model)._plan.steps if isinstance(s.fn, SiblingConv)]
    assert [s.slot for s in steps] == [0, 1, 2]
    a, b = (rng.standard_normal((2, 6, 5, 5)).astype(np.float32) for _ in range(2))
    _assert_near(steps[0](a), steps[0].own(a))
    _assert_near(steps[1](b), steps[1].own(b))  # not the product of a
    _assert_near(steps[2](a), steps[2].own(a))  # the product of a, its channels
    _assert_near(steps[1](a), steps[1].own(a))  # after the last step: its own again


def test_errors_as_the_convolutions_alone_say(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    x = oc.arg("X", np.float32, ("N", "C", "H", "W"))  # (any channel count passes the feed)
    w = [rng.standard_normal((width, 6, 1, 1)).astype(np.float32) for width in (3, 4)]
    model = oc.build([x], {"Y": op.Concat(*(op.Relu(op.Conv(x, v)) for v in w), axis=1)})
    assert _stacked(model) == 2
    wrong = {"X": rng.standard_normal((1, 5, 6, 6)).astype(np.float32)}  # 5 channels, not 6
    with pytest.raises(OnnxcraftError) as stacked:
        oc.Evaluator(model).run(wrong)
    with pytest.raises(OnnxcraftError) as alone:
        _unstacked(model, monkeypatch).run(wrong)
    assert str(stacked.value) == str(alone.value)
    assert "Conv" in str(stacked.value)


def test_threads_get_their_own_products() -> None:
    rng = np.random.default_rng(4)
    model = _module(rng, [5, 3, 4], channels=6)
    evaluator, written = oc.Evaluator(model), oc.Evaluator(model, fuse=False)
    feeds = [rng.standard_normal((b, 6, 7, 6)).astype(np.float32) for b in (1, 2, 3, 1)]
    expected = [written.run({"X": x})["Y"] for x in feeds]
    feeds_by_name = [{"X": x} for x in feeds]
    assert not disagreements_in_threads(evaluator, feeds_by_name, expected)
