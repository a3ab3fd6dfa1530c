"""A Concat followed by a channel shuffle (Reshape, Transpose, Reshape) runs as one step with
``fuse=True``: the same values as the four nodes as written (``fuse=False``), bit for bit,
and the nodes as written wherever the inputs are not a shuffle of equal parts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.errors import OnnxcraftError
from onnxcraft.opset.ai.onnx import v21 as op


def _shuffle_model(
    dtype: Any,
    parts: list[tuple[int, ...]],
    split: tuple[int, ...],
    joined: tuple[int, ...],
    perm: tuple[int, ...],
    *,
    after: bool = True,
) -> Any:
    """Concat(parts..., axis=1), Reshape(split), Transpose(perm), Reshape(joined), then a
    Split of the result in two (as ShuffleNet's next unit) when ``after``."""
    xs = [oc.arg(f"X{i}", dtype, shape) for i, shape in enumerate(parts)]
    joined_value = op.Concat(*xs, axis=1)
    swapped = op.Transpose(op.Reshape(joined_value, np.array(split, np.int64)), perm=perm)
    y = op.Reshape(swapped, np.array(joined, np.int64))
    if not after:
        return oc.build(xs, {"Y": y})
    halves = op.Split(y, num_outputs=2, axis=1)
    return oc.build(xs, {"A": halves[0], "B": op.Neg(halves[1])})


def _feeds(
    dtype: Any, parts: list[tuple[int, ...]], rng: np.random.Generator
) -> dict[str, np.ndarray]:
    feeds = {}
    for index, shape in enumerate(parts):
        data = rng.standard_normal(shape) * 40
        if np.dtype(dtype).kind == "f" and data.size:
            data.reshape(-1)[0] = -0.0
            data.reshape(-1)[-1] = np.nan
        feeds[f"X{index}"] = data.astype(dtype)
    return feeds


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(
        a[k].dtype == b[k].dtype and a[k].shape == b[k].shape and a[k].tobytes() == b[k].tobytes()
        for k in a
    )


def _op_types(model: Any, *, fuse: bool = True) -> list[str]:
    return [step.node.op_type for step in oc.Evaluator(model, fuse=fuse)._plan.steps]


@settings(max_examples=40, deadline=None)
@given(
    groups=st.integers(2, 3),
    channels=st.integers(1, 4),
    batch=st.integers(0, 3),
    spatial=st.lists(st.integers(1, 5), min_size=0, max_size=2),
    dtype=st.sampled_from([np.float32, np.float16, np.float64, np.int8]),
    seed=st.integers(0, 2**16),
)
def test_shuffle_equals_the_nodes_as_written(
    groups: int, channels: int, batch: int, spatial: list[int], dtype: Any, seed: int
) -> None:
    part = (batch, channels, *spatial)
    perm = (0, 2, 1, *range(3, len(part) + 1))
    model = _shuffle_model(
        dtype,
        [part] * groups,
        (batch, groups, channels, *spatial),
        (batch, groups * channels, *spatial),
        perm,
    )
    # A 0 in Reshape's shape means "as the input" (unless allowzero): such shapes, and
    # with them empty batches, run as written.
    assert ("Transpose" in _op_types(model)) == (batch == 0)
    feeds = _feeds(dtype, [part] * groups, np.random.default_rng(seed))
    fused = oc.evaluate(model, feeds)
    assert _same(fused, oc.evaluate(model, feeds, fuse=False))


def test_shuffle_as_shufflenet_writes_each_half_interleaved() -> None:
    parts = [(2, 3, 4, 4)] * 2
    model = _shuffle_model(
        np.float32, parts, (2, 2, 3, 4, 4), (2, 6, 4, 4), (0, 2, 1, 3, 4), after=False
    )
    feeds = _feeds(np.float32, parts, np.random.default_rng(0))
    y = oc.evaluate(model, feeds)["Y"]
    # channel 2i is channel i of the first input, 2i + 1 of the second (the standard's ops)
    assert y[:, 0::2].tobytes() == feeds["X0"].tobytes()
    assert y[:, 1::2].tobytes() == feeds["X1"].tobytes()
    assert y.flags.c_contiguous


@pytest.mark.parametrize(
    ("parts", "split", "joined", "perm"),
    [
        # unequal parts: the reshape regroups channels across the inputs
        ([(1, 2, 3, 3), (1, 4, 3, 3)], (1, 2, 3, 3, 3), (1, 6, 3, 3), (0, 2, 1, 3, 4)),
        # a 0 and a -1 in the shapes: resolved by Reshape at run time
        ([(2, 3, 4, 4)] * 2, (0, 2, -1, 4, 4), (2, -1, 4, 4), (0, 2, 1, 3, 4)),
        # another permutation
        ([(2, 3, 4, 5)] * 2, (2, 2, 3, 4, 5), (2, 6, 4, 5), (0, 1, 2, 4, 3)),
        # more groups in the reshape than inputs
        ([(1, 4, 2, 2)] * 2, (1, 4, 2, 2, 2), (1, 8, 2, 2), (0, 2, 1, 3, 4)),
    ],
)
def test_other_reshapes_run_as_written(
    parts: list[tuple[int, ...]], split: tuple[int, ...], joined: tuple[int, ...], perm: Any
) -> None:
    model = _shuffle_model(np.float32, parts, split, joined, perm)
    feeds = _feeds(np.float32, parts, np.random.default_rng(1))
    assert _same(oc.evaluate(model, feeds), oc.evaluate(model, feeds, fuse=False))


def test_feeds_that_do_not_fit_run_as_written_and_fail_alike() -> None:
    """Declared shapes are symbolic; the fed shapes decide at run time."""
    xs = [oc.arg(f"X{i}", np.float32, ("N", "C", 4, 4)) for i in range(2)]
    y = op.Reshape(
        op.Transpose(
            op.Reshape(op.Concat(*xs, axis=1), np.array([2, 2, 3, 4, 4], np.int64)),
            perm=(0, 2, 1, 3, 4),
        ),
        np.array([2, 6, 4, 4], np.int64),
    )
    model = oc.build(xs, {"Y": y})
    assert "Transpose" not in _op_types(model)
    rng = np.random.default_rng(2)
    fits = {"X0": rng.standard_normal((2, 3, 4, 4), np.float32)}
    fits["X1"] = rng.standard_normal((2, 3, 4, 4), np.float32)
    assert _same(oc.evaluate(model, fits), oc.evaluate(model, fits, fuse=False))
    # 1 + 5 channels: the same count, not a shuffle of equal parts; the nodes as written
    uneven = {"X0": fits["X0"][:, :1].copy(), "X1": np.concatenate([fits["X1"]] * 2, 1)[:, :5]}
    assert _same(oc.evaluate(model, uneven), oc.evaluate(model, uneven, fuse=False))
    # another batch: Reshape refuses it, fused or not
    wrong = {name: np.concatenate([value] * 2) for name, value in fits.items()}
    messages = []
    for fuse in (True, False):
        with pytest.raises(OnnxcraftError) as caught:
            oc.evaluate(model, wrong, fuse=fuse)
        messages.append(str(caught.value))
    assert "Reshape" in messages[0] and messages[0] == messages[1]


def test_values_the_graph_keeps_stop_the_rewrite() -> None:
    xs = [oc.arg(f"X{i}", np.float32, (1, 2, 3, 3)) for i in range(2)]
    joined = op.Concat(*xs, axis=1)
    split = op.Reshape(joined, np.array([1, 2, 2, 3, 3], np.int64))
    swapped = op.Transpose(split, perm=(0, 2, 1, 3, 4))
    y = op.Reshape(swapped, np.array([1, 4, 3, 3], np.int64))
    model = oc.build(xs, {"Y": y, "joined": joined})
    assert "Transpose" in _op_types(model)
    feeds = _feeds(np.float32, [(1, 2, 3, 3)] * 2, np.random.default_rng(3))
    assert _same(oc.evaluate(model, feeds), oc.evaluate(model, feeds, fuse=False))
