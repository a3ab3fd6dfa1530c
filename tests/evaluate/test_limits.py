"""Evaluation limits (issue 16): loop iterations, value size, wall time and cancellation.

A Loop whose trip count is 10**12 is the runaway case: with the default limits it runs (the
standard's semantics), so each test bounds it with one limit and asserts it stops promptly,
with an EvaluationLimitError naming the limit, its value and the node.
"""

from __future__ import annotations

import pickle
import threading
import time
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.ops.run_guard import machine_memory
from onnxcraft.opset.ai.onnx import v21 as op

FEEDS = {"v": np.zeros(1, np.float32)}


def runaway_loop(trips: int | None = 10**12) -> Any:
    """v + 1 a trillion times (or, with no trip count, while a condition that stays true)."""
    v = oc.arg("v", np.float32, (1,))
    count = None if trips is None else np.array(trips, np.int64)
    (out,) = op.Loop(count, np.array(True), v, body=lambda i, c, x: [c, op.Add(x, np.float32(1))])
    return oc.build([v], {"y": out})


def stopped(model: Any, **run: Any) -> tuple[oc.EvaluationLimitError, float]:
    start = time.perf_counter()
    with pytest.raises(oc.EvaluationLimitError) as caught:
        oc.evaluate(model, FEEDS, **run)
    return caught.value, time.perf_counter() - start


@pytest.mark.parametrize("trips", [10**12, None])
def test_max_loop_iterations_stops_a_runaway_loop(trips: int | None) -> None:
    error, elapsed = stopped(runaway_loop(trips), limits=oc.Limits(max_loop_iterations=50))
    assert (error.limit, error.value) == ("max_loop_iterations", 50)
    assert error.node.startswith("Loop node")
    assert "max_loop_iterations=50" in str(error) and "Loop node" in str(error)
    assert isinstance(error, oc.EvaluationError)
    assert elapsed < 5


def test_iterations_are_summed_over_the_run() -> None:
    """Two loops of 30 iterations each pass a limit of 60 and fail one of 59."""
    v = oc.arg("v", np.float32, (1,))
    thirty = np.array(30, np.int64)
    (a,) = op.Loop(thirty, None, v, body=lambda i, c, x: [c, op.Add(x, np.float32(1))])
    (b,) = op.Loop(thirty, None, a, body=lambda i, c, x: [c, op.Add(x, np.float32(1))])
    model = oc.build([v], {"y": b})
    result = oc.evaluate(model, FEEDS, limits=oc.Limits(max_loop_iterations=60))
    np.testing.assert_array_equal(result["y"], [60.0])
    error, _ = stopped(model, limits=oc.Limits(max_loop_iterations=59))
    assert error.limit == "max_loop_iterations"


def test_scan_iterations_count_too() -> None:
    state = oc.arg("s", np.float32, (1,))
    rows = oc.arg("r", np.float32, (100, 1))
    total, _ = op.Scan(
        state, rows, num_scan_inputs=1, body=lambda s, r: [op.Add(s, r), op.Identity(r)]
    )
    model = oc.build([state, rows], {"t": total})
    feeds = {"s": np.zeros(1, np.float32), "r": np.ones((100, 1), np.float32)}
    assert oc.evaluate(model, feeds, limits=oc.Limits(max_loop_iterations=100))["t"][0] == 100
    with pytest.raises(oc.EvaluationLimitError, match="Scan node"):
        oc.evaluate(model, feeds, limits=oc.Limits(max_loop_iterations=99))


def test_timeout_stops_a_runaway_loop_promptly() -> None:
    error, elapsed = stopped(runaway_loop(), limits=oc.Limits(timeout=0.2))
    assert (error.limit, error.value) == ("timeout", 0.2)
    assert "timeout=0.2" in str(error)
    assert elapsed < 5


def test_cancel_from_another_thread_stops_a_runaway_loop() -> None:
    cancel = threading.Event()
    timer = threading.Timer(0.2, cancel.set)
    timer.start()
    try:
        error, elapsed = stopped(runaway_loop(), cancel=cancel)
    finally:
        timer.cancel()
    assert error.limit == "cancel" and "cancelled" in str(error)
    assert error.node.startswith("Loop node")
    assert elapsed < 5


def test_a_set_token_stops_before_the_first_step() -> None:
    cancel = threading.Event()
    cancel.set()
    x = oc.arg("x", np.float32, (1,))
    model = oc.build([x], {"y": op.Neg(x)})
    with pytest.raises(oc.EvaluationLimitError, match="Neg node"):
        oc.Evaluator(model).run({"x": np.ones(1, np.float32)}, cancel=cancel)


def test_a_limit_inside_a_subgraph_names_the_path_of_nodes() -> None:
    """A ConstantOfShape too large, inside a Loop body: the Loop comes first, then the node."""
    v = oc.arg("v", np.float32, (1,))

    def body(i: oc.Var, c: oc.Var, x: oc.Var) -> list[oc.Var]:
        big = op.ConstantOfShape(op.Reshape(op.Mul(i, np.int64(1000)), np.array([1])))
        return [c, op.Add(x, op.ReduceSum(op.Cast(big, to=oc.ElementType.FLOAT)))]

    (out,) = op.Loop(np.array(5, np.int64), None, v, body=body)
    model = oc.build([v], {"y": out})
    error, _ = stopped(model, limits=oc.Limits(max_value_bytes=2000))
    assert error.limit == "max_value_bytes" and error.value == 2000
    assert error.node.startswith("Loop node") and "> ConstantOfShape node" in error.node


def test_default_limits_let_a_long_loop_run() -> None:
    """No iteration or time limit by default: a loop runs its full trip count."""
    result = oc.evaluate(runaway_loop(3000), FEEDS)
    np.testing.assert_array_equal(result["y"], [3000.0])


def test_the_evaluator_limits_apply_to_every_run_and_run_may_replace_them() -> None:
    evaluator = oc.Evaluator(runaway_loop(100), limits=oc.Limits(max_loop_iterations=10))
    with pytest.raises(oc.EvaluationLimitError):
        evaluator.run(FEEDS)
    with pytest.raises(oc.EvaluationLimitError):  # each run counts from zero
        evaluator.run(FEEDS)
    result = evaluator.run(FEEDS, limits=oc.Limits(max_loop_iterations=100))
    np.testing.assert_array_equal(result["y"], [100.0])


# -- values that cannot fit are refused before they are allocated --------------------------------


def test_a_constant_of_shape_larger_than_memory_is_refused_by_default() -> None:
    shape = oc.arg("shape", np.int64, (2,))
    model = oc.build([shape], {"y": op.ConstantOfShape(shape)})
    side = 2**31
    with pytest.raises(oc.EvaluationLimitError) as caught:
        oc.evaluate(model, {"shape": np.array([side, side], np.int64)})
    assert caught.value.limit == "max_value_bytes"
    assert caught.value.value == machine_memory()
    assert f"shape [{side}, {side}]" in str(caught.value)
    assert "ConstantOfShape node" in str(caught.value)


def _single(node: Any, inputs: list[Any]) -> Any:
    return oc.build(inputs, {"y": node})


def _allocating_cases() -> list[tuple[str, Any, dict[str, np.ndarray], tuple[int, ...]]]:
    """(operator, model, feeds that make a 400-element float32 output, its shape)."""
    cases = []
    s = oc.arg("s", np.int64, (1,))
    cases.append(
        ("ConstantOfShape", _single(op.ConstantOfShape(s), [s]), {"s": np.array([400])}, (400,))
    )
    x = oc.arg("x", np.float32, (1, 4))
    shape = oc.arg("shape", np.int64, (2,))
    cases.append(
        (
            "Expand",
            _single(op.Expand(x, shape), [x, shape]),
            {"x": np.ones((1, 4), np.float32), "shape": np.array([100, 4])},
            (100, 4),
        )
    )
    reps = oc.arg("reps", np.int64, (2,))
    cases.append(
        (
            "Tile",
            _single(op.Tile(x, reps), [x, reps]),
            {"x": np.ones((1, 4), np.float32), "reps": np.array([100, 1])},
            (100, 4),
        )
    )
    limit = oc.arg("limit", np.float32, ())
    cases.append(
        (
            "Range",
            _single(op.Range(np.float32(0), limit, np.float32(1)), [limit]),
            {"limit": np.array(400, np.float32)},
            (400,),
        )
    )
    pads = oc.arg("pads", np.int64, (4,))
    cases.append(
        (
            "Pad",
            _single(op.Pad(x, pads), [x, pads]),
            {"x": np.ones((1, 4), np.float32), "pads": np.array([0, 0, 99, 0])},
            (100, 4),
        )
    )
    idx = oc.arg("idx", np.int64, (4,))
    depth = oc.arg("depth", np.int64, ())
    cases.append(
        (
            "OneHot",
            _single(op.OneHot(idx, depth, np.array([0, 1], np.float32)), [idx, depth]),
            {"idx": np.arange(4), "depth": np.array(100)},
            (4, 100),
        )
    )
    sizes = oc.arg("sizes", np.int64, (2,))
    cases.append(
        (
            "Resize",
            _single(op.Resize(x, None, None, sizes), [x, sizes]),
            {"x": np.ones((1, 4), np.float32), "sizes": np.array([100, 4])},
            (100, 4),
        )
    )
    return cases


@pytest.mark.parametrize(
    ("name", "model", "feeds", "shape"), _allocating_cases(), ids=lambda v: str(v)[:20]
)
def test_allocating_operators_check_the_size_first(
    name: str, model: Any, feeds: dict[str, np.ndarray], shape: tuple[int, ...]
) -> None:
    exact = oc.Limits(max_value_bytes=1600)  # 400 float32 values: allowed
    assert oc.evaluate(model, feeds, limits=exact)["y"].shape == shape
    with pytest.raises(oc.EvaluationLimitError) as caught:
        oc.evaluate(model, feeds, limits=oc.Limits(max_value_bytes=1599))
    assert caught.value.limit == "max_value_bytes"
    assert f"{name} node" in str(caught.value) and "1600 bytes" in str(caught.value)


def test_loop_scan_outputs_are_refused_while_they_grow() -> None:
    """A runaway Loop stacking a scan output stops once the stack would pass the budget."""
    v = oc.arg("v", np.float32, (1,))
    body = lambda i, c, x: [c, x, op.Identity(op.Cast(i, to=oc.ElementType.FLOAT))]  # noqa: E731
    _, scanned = op.Loop(np.array(10**12, np.int64), None, v, body=body)
    model = oc.build([v], {"s": scanned})
    error, elapsed = stopped(model, limits=oc.Limits(max_value_bytes=4000))
    assert error.limit == "max_value_bytes" and "shape [1001]" in str(error)
    assert error.node.startswith("Loop node")
    assert elapsed < 5


def _broadcast_cases() -> list[tuple[str, Any, dict[str, np.ndarray], int]]:
    """(operator, model, feeds, bytes of the output) where the output outgrows every input."""
    column = oc.arg("a", np.float32, (100, 1))
    row = oc.arg("b", np.float32, (1, 4))
    feeds = {"a": np.ones((100, 1), np.float32), "b": np.ones((1, 4), np.float32)}
    flag = oc.arg("c", np.bool_, (100, 1))
    where_feeds = {"c": np.ones((100, 1), np.bool_), "b": feeds["b"]}
    bits = oc.arg("a", np.uint32, (100, 1))
    shifts = oc.arg("b", np.uint32, (1, 4))
    bit_feeds = {"a": np.ones((100, 1), np.uint32), "b": np.ones((1, 4), np.uint32)}
    return [
        ("Add", _single(op.Add(column, row), [column, row]), feeds, 1600),
        ("Pow", _single(op.Pow(column, row), [column, row]), feeds, 1600),
        ("Sum", _single(op.Sum(column, row, column), [column, row]), feeds, 1600),
        ("Less", _single(op.Less(column, row), [column, row]), feeds, 400),
        ("Where", _single(op.Where(flag, np.float32(0), row), [flag, row]), where_feeds, 1600),
        (
            "BitShift",
            _single(op.BitShift(bits, shifts, direction="LEFT"), [bits, shifts]),
            bit_feeds,
            1600,
        ),
        ("BitwiseAnd", _single(op.BitwiseAnd(bits, shifts), [bits, shifts]), bit_feeds, 1600),
        ("MatMul", _single(op.MatMul(column, row), [column, row]), feeds, 1600),
        ("Gemm", _single(op.Gemm(column, row), [column, row]), feeds, 1600),
    ]


@pytest.mark.parametrize(
    ("name", "model", "feeds", "size"), _broadcast_cases(), ids=lambda v: str(v)[:12]
)
def test_broadcasting_and_products_check_the_size_before_computing(
    name: str, model: Any, feeds: dict[str, np.ndarray], size: int
) -> None:
    """A (100, 1) and a (1, 4) input make a (100, 4) output: measured before it is made."""
    assert oc.evaluate(model, feeds, limits=oc.Limits(max_value_bytes=size))["y"].shape == (100, 4)
    with pytest.raises(oc.EvaluationLimitError) as caught:
        oc.evaluate(model, feeds, limits=oc.Limits(max_value_bytes=size - 1))
    assert f"{name} node" in str(caught.value)
    assert "shape [100, 4]" in str(caught.value) and "nothing was allocated" in str(caught.value)


def test_an_outer_sum_larger_than_memory_is_refused_by_default() -> None:
    """Two vectors of 2**21 floats (8 MiB each) would broadcast to 16 TiB."""
    column = oc.arg("a", np.float32, ("N", 1))
    row = oc.arg("b", np.float32, (1, "M"))
    model = _single(op.Mul(column, row), [column, row])
    side = 2**21
    feeds = {"a": np.ones((side, 1), np.float32), "b": np.ones((1, side), np.float32)}
    with pytest.raises(oc.EvaluationLimitError) as caught:
        oc.evaluate(model, feeds)
    assert caught.value.value == machine_memory()
    assert f"shape [{side}, {side}]" in str(caught.value)


def test_every_value_is_held_to_a_chosen_limit_after_its_step() -> None:
    """A Concat of many inputs grows past the limit without any one allocation being checked."""
    x = oc.arg("x", np.float32, (100,))
    model = _single(op.Concat(x, x, x, x, axis=0), [x])
    feeds = {"x": np.ones(100, np.float32)}
    assert oc.evaluate(model, feeds, limits=oc.Limits(max_value_bytes=1600))["y"].shape == (400,)
    with pytest.raises(oc.EvaluationLimitError) as caught:
        oc.evaluate(model, feeds, limits=oc.Limits(max_value_bytes=1599))
    assert caught.value.limit == "max_value_bytes"
    assert "Concat node" in str(caught.value) and "produced a value of 1600 bytes" in str(
        caught.value
    )


def _long_rnn() -> tuple[Any, dict[str, np.ndarray]]:
    steps = 100_000
    x = oc.arg("x", np.float32, (steps, 1, 2))
    w = np.full((1, 3, 2), 0.1, np.float32)
    r = np.full((1, 3, 3), 0.1, np.float32)
    _, last = op.RNN(x, w, r, hidden_size=3)
    return _single(last, [x]), {"x": np.ones((steps, 1, 2), np.float32)}


def test_a_long_sequence_stops_between_time_steps() -> None:
    """An RNN over 100,000 steps (over a second) stops at the timeout, inside its kernel.

    The RNN is the model's only step: had its kernel not looked at the clock, the run would
    have passed the check before it and finished without an error.
    """
    model, feeds = _long_rnn()
    with pytest.raises(oc.EvaluationLimitError) as caught:
        oc.evaluate(model, feeds, limits=oc.Limits(timeout=0.05))
    assert caught.value.limit == "timeout" and "RNN node" in str(caught.value)


def test_a_long_sequence_is_cancelled_from_another_thread() -> None:
    model, feeds = _long_rnn()
    token = threading.Event()
    threading.Timer(0.1, token.set).start()
    with pytest.raises(oc.EvaluationLimitError) as caught:
        oc.evaluate(model, feeds, cancel=token)
    assert caught.value.limit == "cancel" and "RNN node" in str(caught.value)


def test_non_max_suppression_stops_between_classes() -> None:
    """2,000 classes (over a second of work) in the model's only step stop at the timeout."""
    classes = 2_000
    boxes = oc.arg("boxes", np.float32, (1, 50, 4))
    scores = oc.arg("scores", np.float32, (1, classes, 50))
    selected = op.NonMaxSuppression(boxes, scores, np.array([50], np.int64), np.float32(0.5))
    model = _single(selected, [boxes, scores])
    rng = np.random.default_rng(0)
    corners = rng.random((1, 50, 2), np.float32)
    feeds = {
        "boxes": np.concatenate([corners, corners + 0.1], axis=2),
        "scores": rng.random((1, classes, 50), np.float32),
    }
    with pytest.raises(oc.EvaluationLimitError) as caught:
        oc.evaluate(model, feeds, limits=oc.Limits(timeout=0.05))
    assert caught.value.limit == "timeout" and "NonMaxSuppression node" in str(caught.value)


def test_roi_align_stops_between_regions() -> None:
    regions = 20_000
    x = oc.arg("x", np.float32, (1, 1, 8, 8))
    rois = oc.arg("rois", np.float32, (regions, 4))
    pooled = op.RoiAlign(x, rois, np.zeros(regions, np.int64), output_height=2, output_width=2)
    model = _single(pooled, [x, rois])
    feeds = {
        "x": np.ones((1, 1, 8, 8), np.float32),
        "rois": np.tile(np.array([[0, 0, 4, 4]], np.float32), (regions, 1)),
    }
    with pytest.raises(oc.EvaluationLimitError) as caught:
        oc.evaluate(model, feeds, limits=oc.Limits(timeout=0.05))
    assert caught.value.limit == "timeout" and "RoiAlign node" in str(caught.value)


# -- the API -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_loop_iterations": -1},
        {"max_loop_iterations": 1.5},
        {"max_loop_iterations": True},
        {"max_value_bytes": 0},
        {"timeout": 0},
        {"timeout": float("nan")},
        {"timeout": "1"},
    ],
)
def test_bad_limits_are_refused(kwargs: dict[str, Any]) -> None:
    (name,) = kwargs
    with pytest.raises(oc.EvaluationError, match=f"Limits: {name}"):
        oc.Limits(**kwargs)


def test_limits_and_cancel_of_the_wrong_kind_are_refused() -> None:
    x = oc.arg("x", np.float32, (1,))
    model = oc.build([x], {"y": op.Neg(x)})
    feeds = {"x": np.ones(1, np.float32)}
    with pytest.raises(oc.EvaluationError, match=r"limits must be an oc\.Limits, got dict"):
        oc.evaluate(model, feeds, limits={"timeout": 1})  # type: ignore[arg-type]
    with pytest.raises(oc.EvaluationError, match=r"cancel must be a threading\.Event"):
        oc.evaluate(model, feeds, cancel=True)


def test_numpy_numbers_are_taken_as_limits() -> None:
    limits = oc.Limits(max_loop_iterations=np.int64(5), timeout=np.float32(0.5))
    assert limits.max_loop_iterations == 5 and type(limits.max_loop_iterations) is int
    assert limits.timeout == 0.5 and type(limits.timeout) is float


def test_a_random_tensor_larger_than_memory_is_refused_before_drawing() -> None:
    x = oc.arg("x", np.float32, (1,))
    huge = op.RandomNormal(shape=[2**40, 2**20])
    model = oc.build([x], {"y": op.Add(x, op.ReduceSum(huge))})
    with pytest.raises(oc.EvaluationLimitError, match=r"RandomNormal node.*shape \[1099511627776"):
        oc.evaluate(model, {"x": np.zeros(1, np.float32)})


def test_a_limit_error_survives_pickling() -> None:
    """Runs in worker processes send their errors back pickled."""
    error, _ = stopped(runaway_loop(), limits=oc.Limits(max_loop_iterations=3))
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.limit, copy.value, copy.node, str(copy)) == (
        error.limit,
        error.value,
        error.node,
        str(error),
    )
