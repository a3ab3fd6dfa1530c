"""Prepared convolutions writing into their Concat's output (``fuse=True``): the values are
those of the same evaluator without the rewrite, bit for bit, run after run, when shapes
change between runs, across threads; and the rewrite applies only where it may."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.evaluate import fusion
from onnxcraft.ops.conv.prepared import prepare_conv
from onnxcraft.opset.ai.onnx import v21 as op
from tests.evaluate._threads import run_in_threads


@contextmanager
def _no_rewrite() -> Iterator[None]:
    saved = fusion.write_into_concats
    fusion.write_into_concats = lambda steps, *args: steps  # type: ignore[assignment]
    try:
        yield
    finally:
        fusion.write_into_concats = saved  # type: ignore[assignment]


def _written(model: Any) -> oc.Evaluator:
    with _no_rewrite():
        return oc.Evaluator(model)


def _targets(evaluator: oc.Evaluator) -> int:
    return sum(1 for s in evaluator._plan.steps if "_Target" in getattr(s.fn, "__qualname__", ""))


def _branches(
    dtype: type, channels: int, kernels: list[int], outs: list[int], relu: bool, seed: int
) -> Any:
    rng = np.random.default_rng(seed)
    X = oc.arg("X", dtype, ("N", channels, "H", "W"))
    parts = []
    for k, m in zip(kernels, outs, strict=True):
        w = rng.standard_normal((m, channels, k, k)).astype(dtype)
        b = rng.standard_normal(m).astype(dtype)
        y = op.Conv(X, w, b, pads=(k // 2,) * 4)
        parts.append(op.Relu(y) if relu else y)
    joined = op.Concat(*parts, axis=1)
    return oc.build([X], {"Y": op.Neg(joined), "C": joined})


@settings(max_examples=40, deadline=None)
@given(
    dtype=st.sampled_from([np.float32, np.float64]),
    channels=st.integers(1, 6),
    branches=st.lists(
        st.tuples(st.sampled_from([1, 3]), st.integers(1, 5)), min_size=2, max_size=4
    ),
    relu=st.booleans(),
    sizes=st.lists(st.tuples(st.integers(0, 3), st.integers(1, 9)), min_size=1, max_size=4),
    seed=st.integers(0, 2**16),
)
def test_same_bits_as_without_the_rewrite(
    dtype: type,
    channels: int,
    branches: list[tuple[int, int]],
    relu: bool,
    sizes: list[tuple[int, int]],
    seed: int,
) -> None:
    kernels, outs = [k for k, _ in branches], [m for _, m in branches]
    model = _branches(dtype, channels, kernels, outs, relu, seed)
    fast, written = oc.Evaluator(model), _written(model)
    assert _targets(fast) == len(branches) + 1
    rng = np.random.default_rng(seed)
    for batch, side in sizes:  # each size twice: the first run learns it, the second uses it
        x = rng.standard_normal((batch, channels, side, side + 1)).astype(dtype)
        expected = written.run({"X": x})
        for _ in range(2):
            got = fast.run({"X": x})
            for name in ("Y", "C"):
                assert got[name].dtype == expected[name].dtype
                assert got[name].tobytes() == expected[name].tobytes()


def test_outputs_are_new_arrays_every_run() -> None:
    model = _branches(np.float32, 3, [1, 3], [2, 4], True, 0)
    evaluator = oc.Evaluator(model)
    x = np.random.default_rng(1).standard_normal((2, 3, 5, 5)).astype(np.float32)
    first = [evaluator.run({"X": x})["C"] for _ in range(3)]
    second = evaluator.run({"X": -x})["C"]
    assert all(np.array_equal(a, first[0]) for a in first)
    assert not any(np.may_share_memory(a, second) for a in first)
    assert not np.array_equal(second, first[0])


def test_threads_get_their_own_outputs() -> None:
    model = _branches(np.float32, 4, [3, 1, 3], [3, 2, 5], True, 2)
    evaluator, written = oc.Evaluator(model), _written(model)
    rng = np.random.default_rng(3)
    feeds = [rng.standard_normal((b, 4, 6, 7)).astype(np.float32) for b in (1, 2, 3, 1)]
    expected = [written.run({"X": x})["Y"].tobytes() for x in feeds]
    failures: list[int] = []

    def work(index: int) -> None:
        for _ in range(20):
            if evaluator.run({"X": feeds[index]})["Y"].tobytes() != expected[index]:
                failures.append(index)

    run_in_threads(work, len(feeds))
    assert not failures


def test_only_sole_readers_of_prepared_convolutions_along_axis_one() -> None:
    rng = np.random.default_rng(4)
    X = oc.arg("X", np.float32, (1, 3, 5, 5))
    w = rng.standard_normal((2, 3, 1, 1)).astype(np.float32)
    a, b = op.Relu(op.Conv(X, w)), op.Relu(op.Conv(X, w * 2))
    read_twice = oc.build([X], {"Y": op.Concat(a, b, axis=1), "A": a})
    other_axis = oc.build([X], {"Y": op.Concat(a, b, axis=2)})
    not_a_conv = oc.build([X], {"Y": op.Concat(a, op.Neg(X), axis=1)})
    for model in (read_twice, other_axis, not_a_conv):
        assert _targets(oc.Evaluator(model)) == 0
    assert _targets(oc.Evaluator(oc.build([X], {"Y": op.Concat(a, b, axis=1)}))) == 3


@settings(max_examples=40, deadline=None)
@given(
    batch=st.integers(1, 4),
    channels=st.integers(1, 40),
    out_channels=st.integers(1, 40),
    kernel=st.sampled_from([1, 3, 5]),
    side=st.integers(3, 16),
    before=st.integers(0, 3),
    after=st.integers(0, 3),
    relu=st.booleans(),
)
def test_prepared_conv_writes_its_slice_or_a_new_array(
    batch: int,
    channels: int,
    out_channels: int,
    kernel: int,
    side: int,
    before: int,
    after: int,
    relu: bool,
) -> None:
    """``out=`` (the hook the rewrite uses): the same bits as without it, and nothing of the
    surrounding array touched."""
    rng = np.random.default_rng(channels * 100 + side)
    w = rng.standard_normal((out_channels, channels, kernel, kernel)).astype(np.float32)
    b = rng.standard_normal(out_channels).astype(np.float32)
    relu_kernel = (lambda y: np.maximum(y, 0)) if relu else None
    conv = prepare_conv(w, b, {"pads": [kernel // 2] * 4}, relu=relu_kernel)
    assert conv is not None
    x = rng.standard_normal((batch, channels, side, side)).astype(np.float32)
    expected = conv(x)
    whole = np.full((batch, before + out_channels + after, side, side), 7.0, np.float32)
    place = whole[:, before : before + out_channels]
    got = conv(x, out=place)
    assert got.tobytes() == expected.tobytes()
    if got is place:
        assert np.all(whole[:, :before] == 7.0) and np.all(whole[:, before + out_channels :] == 7.0)
    else:
        assert np.all(whole == 7.0)
