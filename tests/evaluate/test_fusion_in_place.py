"""Add, Sub and Mul writing their result over the fresh array of the node before them
(``fuse=True``): the same values as the nodes as written, bit for bit, and never over a
feed, a constant or a value something else reads."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft import ops
from onnxcraft.evaluate.fusion import _IN_PLACE_KERNELS, _into_input
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.opset.ai.onnx import v21 as op


def _bits(values: dict[str, np.ndarray]) -> dict[str, bytes]:
    return {k: np.ascontiguousarray(v).tobytes() + str(v.dtype).encode() for k, v in values.items()}


class _Weights:
    """Conv weights fed as graph inputs: a Conv with constant weights runs prepared and takes
    the residual Add itself (tests/evaluate/test_prepared_conv.py); a fed one runs its own
    kernel, whose fresh array the in-place Add then writes over."""

    def __init__(self) -> None:
        self.args: list[oc.Var] = []
        self.feeds: dict[str, np.ndarray] = {}

    def conv(
        self, x: oc.Var, rng: np.random.Generator, c_in: int, c_out: int, dtype: type
    ) -> oc.Var:
        name = f"W{len(self.args)}"
        self.feeds[name] = rng.standard_normal((c_out, c_in, 3, 3)).astype(dtype)
        self.args.append(oc.arg(name, dtype, (c_out, c_in, 3, 3)))
        return op.Conv(x, self.args[-1], pads=(1, 1, 1, 1))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["Add", "Sub", "Mul"]),
    fresh_first=st.booleans(),
    other=st.sampled_from(["same", "channel", "scalar", "wider"]),
    dtype=st.sampled_from([np.float32, np.float64, np.float16]),
    batch=st.integers(0, 3),
    relu=st.booleans(),
)
def test_in_place_equals_as_written(
    seed: int, kind: str, fresh_first: bool, other: str, dtype: type, batch: int, relu: bool
) -> None:
    rng = np.random.default_rng(seed)
    X = oc.arg("X", dtype, (batch, 3, 5, 4))
    weights = _Weights()
    conv = weights.conv(X, rng, 3, 4, dtype)
    if other == "same":
        second = weights.conv(X, rng, 3, 4, dtype)  # fresh too: only one is overwritten
    elif other == "channel":
        second = rng.standard_normal((4, 1, 1)).astype(dtype)
    elif other == "scalar":
        second = np.asarray(-0.5, dtype)
    else:  # the result is wider than the fresh array: the kernel runs as written
        second = rng.standard_normal((2, 1, 1, 1, 1)).astype(dtype)
    pair = (conv, second) if fresh_first else (second, conv)
    y = getattr(op, kind)(*pair)
    if relu:
        y = op.Relu(y)
    model = oc.build([X, *weights.args], {"Y": y})
    x = rng.standard_normal((batch, 3, 5, 4)).astype(dtype)
    kept = x.copy()
    fused = oc.evaluate(model, {"X": x, **weights.feeds})
    written = oc.evaluate(model, {"X": x, **weights.feeds}, fuse=False)
    assert _bits(fused) == _bits(written)
    assert np.array_equal(x, kept)  # the feed is never written


def test_rewritten_only_over_a_fresh_single_reader() -> None:
    rng = np.random.default_rng(0)
    X = oc.arg("X", np.float32, (2, 3, 5, 4))
    weights = _Weights()
    conv = weights.conv(X, rng, 3, 3, np.float32)
    shared = weights.conv(X, rng, 3, 3, np.float32)
    residual = op.Add(conv, X)  # conv read once: in place; X is a feed
    twice = op.Add(shared, residual)  # shared is read twice (also below)
    model = oc.build([X, *weights.args], {"Y": twice, "S": op.Mul(shared, 2.0)})
    plan = oc.Evaluator(model)._plan
    in_place = [s.node.op_type for s in plan.steps if s.fn in _IN_PLACE_KERNELS]
    # residual (over conv) and twice (over residual, itself fresh); not the Mul over shared.
    assert in_place == ["Add", "Add"]
    # A Relu after an in-place Add is merged into it (clamping the same array).
    model = oc.build([X, *weights.args], {"Y": op.Relu(twice), "S": op.Mul(shared, 2.0)})
    plan = oc.Evaluator(model)._plan
    assert [s.node.op_type for s in plan.steps] == ["Conv", "Conv", "Add", "Add", "Mul"]
    feeds = {"X": rng.standard_normal((2, 3, 5, 4)).astype(np.float32), **weights.feeds}
    fused = oc.evaluate(model, feeds)
    assert _bits(fused) == _bits(oc.evaluate(model, feeds, fuse=False))


def test_graph_outputs_constants_and_caller_kernels_are_left_alone() -> None:
    rng = np.random.default_rng(1)
    X = oc.arg("X", np.float32, (1, 3, 5, 4))
    weights = _Weights()
    conv = weights.conv(X, rng, 3, 3, np.float32)
    model = oc.build([X, *weights.args], {"C": conv, "Y": op.Add(conv, 1.0)})  # an output
    assert not any(s.fn in _IN_PLACE_KERNELS for s in oc.Evaluator(model)._plan.steps)
    folded = oc.build([X], {"Y": op.Add(X, op.Add(np.ones((1, 3, 5, 4), np.float32), 1.0))})
    assert not any(s.fn in _IN_PLACE_KERNELS for s in oc.Evaluator(folded)._plan.steps)
    # A caller's registry: its Add may not be numpy's (and its Conv may return a view).
    registry = KernelRegistry()
    ops.load("kernels", registry)
    own = KernelRegistry()
    calls: list[int] = []

    def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        calls.append(1)
        return np.add(a, b)

    for key in registry:
        entry = registry.lookup(*key)
        assert entry is not None
        fn = add if entry.op_type == "Add" else entry.fn
        own.add(entry.op_type, fn, since=key[2], domain=entry.domain, context=entry.context)
    weights = _Weights()
    fresh = weights.conv(X, rng, 3, 3, np.float32)
    model = oc.build([X, *weights.args], {"Y": op.Add(fresh, 1.0)})
    evaluator = oc.Evaluator(model, kernels=own)
    assert not any(s.fn in _IN_PLACE_KERNELS for s in evaluator._plan.steps)
    evaluator.run({"X": np.ones((1, 3, 5, 4), np.float32), **weights.feeds})
    assert calls == [1]


def test_fallback_keeps_the_kernels_errors() -> None:
    add = default_registry().lookup("", "Add", 14)
    assert add is not None
    run = _into_input(add.fn, np.add, 0)
    bad = (np.ones((2, 3), np.float32), np.ones((4,), np.float32))
    with pytest.raises(Exception) as by_kernel:
        add.fn(*bad)
    with pytest.raises(type(by_kernel.value), match=re.escape(str(by_kernel.value))):
        run(*bad)
    # Mixed types and read-only arrays go through the kernel too, which returns a new array.
    frozen = np.ones(3, np.float32)
    frozen.setflags(write=False)
    assert run(frozen, np.ones(3, np.float32)) is not frozen
    target = np.ones(3, np.float32)
    assert run(target, np.ones(3, np.float32)) is target
