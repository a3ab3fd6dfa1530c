"""The vector-Jacobian product rules (the `vjp` parts of onnxcraft.ops), one operator at a time.

Oracle: central finite differences in float64, written here. For an operator node ``out =
op(inputs)`` and a random weight ``R``, the model computes ``loss = ReduceSum(out * R)`` and a
Gradient node gives d loss / d input, which is the rule's product of ``R`` with the Jacobian;
the finite differences perturb one input element at a time and re-evaluate the operator alone.
Shapes, attributes and values are drawn by hypothesis; values keep away from kinks (0 for
Relu/Abs, bounds for Clip, ties for Max/MaxPool) by much more than the step h.

Tolerance: with h = 1e-6 the truncation error (h^2 / 6 * f''') is below 1e-11 for these
smooth, O(1) functions and the rounding error (|loss| * 2**-52 / h) below 1e-8, so 1e-6
absolute and relative separates a right rule from a wrong one by orders of magnitude.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from onnx import TensorProto, helper

import onnxcraft as oc
from onnxcraft.ops.vjp_api import ALL_VERSIONS, VjpRegistry, default_vjp_rules

TRAINING = "ai.onnx.preview.training"
OPSET = 21
STEP = 1e-6
TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# The operators with a case below; a test keeps this list and the rule table equal.
COVERED = frozenset(
    {
        *("Add", "Sub", "Mul", "Div", "Pow", "Sum", "Mean", "Max", "Min"),
        *("Neg", "Abs", "Exp", "Log", "Sqrt", "Reciprocal", "Tanh", "Sin", "Cos", "Erf"),
        *("Relu", "LeakyRelu", "Sigmoid", "Clip", "Softmax", "LogSoftmax"),
        *("MatMul", "Gemm", "Where", "Cast", "CastLike"),
        *("Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat"),
        *("Slice", "Expand", "Tile", "Gather", "GatherElements", "GatherND"),
        *("ReduceSum", "ReduceMean", "ReduceSumSquare", "ReduceMax", "ReduceMin"),
        *("Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"),
    }
)


# -- the harness ----------------------------------------------------------------------------------


def central_difference(f: Callable[[np.ndarray], float], x: np.ndarray) -> np.ndarray:
    """df/dx by (f(x + h e_i) - f(x - h e_i)) / 2h for every element i, in float64."""
    grad = np.zeros(x.shape, np.float64)
    for index in np.ndindex(*x.shape):
        up, down = x.copy(), x.copy()
        up[index] += STEP
        down[index] -= STEP
        grad[index] = (f(up) - f(down)) / (2 * STEP)
    return grad


def _info(name: str, value: np.ndarray | None) -> Any:
    if value is None:
        return helper.make_tensor_value_info(name, TensorProto.DOUBLE, None)
    elem = helper.np_dtype_to_tensor_dtype(value.dtype)
    return helper.make_tensor_value_info(name, elem, value.shape)


def _model(nodes: list[Any], feeds: dict[str, np.ndarray], outputs: list[str], opset: int) -> Any:
    graph = helper.make_graph(
        nodes,
        "vjp_case",
        [_info(name, value) for name, value in feeds.items()],
        [_info(name, None) for name in outputs],
    )
    imports = [helper.make_opsetid("", opset), helper.make_opsetid(TRAINING, 1)]
    return helper.make_model(graph, opset_imports=imports)


def check_vjp(
    op_type: str,
    inputs: Sequence[tuple[str, np.ndarray | None]],
    wrt: Sequence[str],
    *,
    attrs: dict[str, Any] | None = None,
    opset: int = OPSET,
    outputs: int = 1,
    seed: int = 0,
) -> None:
    """Compare the Gradient of ReduceSum(op(inputs) * R) w.r.t. ``wrt`` with finite differences.

    ``inputs`` lists (name, value) in the node's input order; an empty name omits the input.
    """
    feeds = {name: value for name, value in inputs if name and value is not None}
    names = [name for name, _ in inputs]
    out_names = ["out"] + [f"extra_{i}" for i in range(1, outputs)]
    node = helper.make_node(op_type, names, out_names, **(attrs or {}))
    forward = oc.Evaluator(_model([node], feeds, ["out"], opset))
    out = forward.run(feeds)["out"]
    weight = np.random.default_rng(seed).uniform(-1.0, 1.0, out.shape)
    others = [n for n in feeds if n not in wrt]
    nodes = [
        node,
        helper.make_node("Mul", ["out", "R"], ["weighted"]),
        helper.make_node("ReduceSum", ["weighted"], ["loss"], keepdims=0),
        helper.make_node(
            "Gradient",
            [*wrt, *others, "R"],
            [f"d_{name}" for name in wrt],
            domain=TRAINING,
            xs=list(wrt),
            zs=[*others, "R"],
            y="loss",
        ),
    ]
    full = {**feeds, "R": weight}
    model = _model(nodes, full, [f"d_{name}" for name in wrt], opset)
    grads = oc.Evaluator(model).run(full)
    for name in wrt:

        def loss(value: np.ndarray, name: str = name) -> float:
            result = forward.run({**feeds, name: value})["out"]
            return float(np.sum(result * weight))

        expected = central_difference(loss, feeds[name])
        got = grads[f"d_{name}"]
        assert got.shape == feeds[name].shape, (op_type, name)
        np.testing.assert_allclose(got, expected, **TOLERANCE, err_msg=f"{op_type} d/d{name}")


# -- value strategies -----------------------------------------------------------------------------

seeds = st.integers(0, 2**32 - 1)
small_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)


def uniform(rng: np.random.Generator, shape: Sequence[int], low=-2.0, high=2.0) -> np.ndarray:
    return rng.uniform(low, high, tuple(shape))


def away_from_zero(rng: np.random.Generator, shape: Sequence[int]) -> np.ndarray:
    """Values in +-[0.2, 2]: far from the kink at 0."""
    magnitude = rng.uniform(0.2, 2.0, tuple(shape))
    return np.where(rng.random(tuple(shape)) < 0.5, -magnitude, magnitude)


def distinct(rng: np.random.Generator, shapes: Sequence[Sequence[int]]) -> list[np.ndarray]:
    """Arrays whose elements all differ by at least 0.05 (no ties for max/min)."""
    sizes = [int(np.prod(s)) for s in shapes]
    pool = (rng.permutation(sum(sizes)) - sum(sizes) / 2) * 0.1 + rng.uniform(0, 0.05)
    pieces = np.split(pool, np.cumsum(sizes)[:-1])
    return [p.reshape(tuple(s)) for p, s in zip(pieces, shapes)]


# -- arithmetic -----------------------------------------------------------------------------------

broadcast_pairs = hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3)


@SETTINGS
@given(shapes=broadcast_pairs, seed=seeds, op=st.sampled_from(["Add", "Sub", "Mul"]))
def test_add_sub_mul_broadcast(shapes: Any, seed: int, op: str) -> None:
    rng = np.random.default_rng(seed)
    a, b = (uniform(rng, s) for s in shapes.input_shapes)
    check_vjp(op, [("A", a), ("B", b)], ["A", "B"], seed=seed)


@SETTINGS
@given(shapes=broadcast_pairs, seed=seeds)
def test_div_broadcast(shapes: Any, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = uniform(rng, shapes.input_shapes[0])
    b = away_from_zero(rng, shapes.input_shapes[1])
    check_vjp("Div", [("A", a), ("B", b)], ["A", "B"], seed=seed)


@SETTINGS
@given(shapes=broadcast_pairs, seed=seeds)
def test_pow_broadcast(shapes: Any, seed: int) -> None:
    rng = np.random.default_rng(seed)
    base = uniform(rng, shapes.input_shapes[0], 0.3, 2.0)
    exponent = uniform(rng, shapes.input_shapes[1], -2.0, 2.0)
    check_vjp("Pow", [("X", base), ("Y", exponent)], ["X", "Y"], seed=seed)


def test_pow_integer_exponent_gets_no_gradient() -> None:
    base = np.array([[0.5, -1.5, 2.0]])
    exponent = np.array([3], np.int64)
    check_vjp("Pow", [("X", base), ("Y", exponent)], ["X"])


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize(("b_shape", "axis"), [((3,), 1), ((3, 4), 1), ((4,), None), ((), None)])
def test_legacy_broadcast_before_opset_7(op: str, b_shape: tuple[int, ...], axis: Any) -> None:
    rng = np.random.default_rng(3)
    a = uniform(rng, (2, 3, 4))
    b = away_from_zero(rng, b_shape)
    attrs: dict[str, Any] = {"broadcast": 1}
    if axis is not None:
        attrs["axis"] = axis
    check_vjp(op, [("A", a), ("B", b)], ["A", "B"], attrs=attrs, opset=6)


variadic_shapes = st.integers(1, 3).flatmap(
    lambda n: hnp.mutually_broadcastable_shapes(num_shapes=n, max_dims=3, max_side=3)
)


@SETTINGS
@given(shapes=variadic_shapes, seed=seeds, op=st.sampled_from(["Sum", "Mean", "Max", "Min"]))
def test_variadic_broadcast(shapes: Any, seed: int, op: str) -> None:
    rng = np.random.default_rng(seed)
    values = distinct(rng, shapes.input_shapes)  # no ties: Max/Min are differentiable here
    inputs = [(f"X{i}", v) for i, v in enumerate(values)]
    check_vjp(op, inputs, [n for n, _ in inputs], seed=seed)


def test_max_tie_goes_to_the_first_input() -> None:
    """At a tie the subgradient is the first input's: hand-derived, not finite differences."""
    a = np.array([1.0, 2.0, 3.0])
    b = np.array([1.0, 5.0, 0.0])
    feeds = {"A": a, "B": b, "R": np.array([1.0, 10.0, 100.0])}
    nodes = [
        helper.make_node("Max", ["A", "B"], ["out"]),
        helper.make_node("Mul", ["out", "R"], ["weighted"]),
        helper.make_node("ReduceSum", ["weighted"], ["loss"], keepdims=0),
        helper.make_node(
            "Gradient",
            ["A", "B", "R"],
            ["dA", "dB"],
            domain=TRAINING,
            xs=["A", "B"],
            zs=["R"],
            y="loss",
        ),
    ]
    got = oc.Evaluator(_model(nodes, feeds, ["dA", "dB"], OPSET)).run(feeds)
    np.testing.assert_array_equal(got["dA"], [1.0, 0.0, 100.0])
    np.testing.assert_array_equal(got["dB"], [0.0, 10.0, 0.0])


# -- unary math and activations -------------------------------------------------------------------

_UNARY_DOMAINS: dict[str, Callable[[np.random.Generator, Sequence[int]], np.ndarray]] = {
    "Neg": uniform,
    "Abs": away_from_zero,
    "Exp": uniform,
    "Log": lambda rng, s: uniform(rng, s, 0.2, 3.0),
    "Sqrt": lambda rng, s: uniform(rng, s, 0.2, 3.0),
    "Reciprocal": away_from_zero,
    "Tanh": uniform,
    "Sin": uniform,
    "Cos": uniform,
    "Erf": uniform,
    "Relu": away_from_zero,
    "Sigmoid": lambda rng, s: uniform(rng, s, -4.0, 4.0),
}


@SETTINGS
@given(shape=small_shapes, seed=seeds, op=st.sampled_from(sorted(_UNARY_DOMAINS)))
def test_unary(shape: tuple[int, ...], seed: int, op: str) -> None:
    x = _UNARY_DOMAINS[op](np.random.default_rng(seed), shape)
    check_vjp(op, [("X", x)], ["X"], seed=seed)


@SETTINGS
@given(shape=small_shapes, seed=seeds, alpha=st.floats(0.01, 0.9))
def test_leaky_relu(shape: tuple[int, ...], seed: int, alpha: float) -> None:
    x = away_from_zero(np.random.default_rng(seed), shape)
    check_vjp("LeakyRelu", [("X", x)], ["X"], attrs={"alpha": alpha}, seed=seed)


def _clip_values(rng: np.random.Generator, shape: Sequence[int]) -> np.ndarray:
    """Values at least 0.1 away from the bounds -0.5 and 0.7 used below."""
    x = uniform(rng, shape, -2.0, 2.0)
    for bound in (-0.5, 0.7):
        x = np.where(np.abs(x - bound) < 0.1, bound + 0.15, x)
    return x


@SETTINGS
@given(shape=small_shapes, seed=seeds, bounds=st.sampled_from(["both", "low", "high", "none"]))
def test_clip_with_bound_inputs(shape: tuple[int, ...], seed: int, bounds: str) -> None:
    x = _clip_values(np.random.default_rng(seed), shape)
    low = np.array(-0.5) if bounds in ("both", "low") else None
    high = np.array(0.7) if bounds in ("both", "high") else None
    inputs = [
        ("X", x),
        ("min" if low is not None else "", low),
        ("max" if high is not None else "", high),
    ]
    wrt = ["X"] + [n for n, v in inputs[1:] if v is not None]
    check_vjp("Clip", inputs, wrt, seed=seed)


@SETTINGS
@given(shape=small_shapes, seed=seeds)
def test_clip_with_bound_attributes(shape: tuple[int, ...], seed: int) -> None:
    x = _clip_values(np.random.default_rng(seed), shape)
    check_vjp("Clip", [("X", x)], ["X"], attrs={"min": -0.5, "max": 0.7}, opset=6, seed=seed)


def test_clip_with_crossed_bounds() -> None:
    """min > max gives max everywhere: all of the cotangent goes to max."""
    x = np.array([-1.0, 0.2, 3.0])
    check_vjp(
        "Clip", [("X", x), ("min", np.array(1.0)), ("max", np.array(0.5))], ["X", "min", "max"]
    )


softmax_cases = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4).flatmap(
    lambda shape: st.tuples(st.just(shape), st.integers(-len(shape), len(shape) - 1))
)


@SETTINGS
@given(case=softmax_cases, seed=seeds, op=st.sampled_from(["Softmax", "LogSoftmax"]))
def test_softmax_family(case: Any, seed: int, op: str) -> None:
    shape, axis = case
    x = uniform(np.random.default_rng(seed), shape, -3.0, 3.0)
    check_vjp(op, [("X", x)], ["X"], attrs={"axis": axis}, seed=seed)


legacy_softmax_cases = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4).flatmap(
    lambda shape: st.tuples(st.just(shape), st.integers(-len(shape), len(shape) - 1))
)


@SETTINGS
@given(case=legacy_softmax_cases, seed=seeds, op=st.sampled_from(["Softmax", "LogSoftmax"]))
def test_softmax_family_before_13_flattens_at_axis(case: Any, seed: int, op: str) -> None:
    shape, axis = case
    x = uniform(np.random.default_rng(seed), shape, -3.0, 3.0)
    check_vjp(op, [("X", x)], ["X"], attrs={"axis": axis}, opset=11, seed=seed)


# -- linear algebra -------------------------------------------------------------------------------


@st.composite
def matmul_shapes(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Operand shapes numpy's matmul accepts: 1-D vectors and broadcast batch axes."""
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3))
    m, k, n = (draw(st.integers(1, 3)) for _ in range(3))
    a_vector, b_vector = draw(st.booleans()), draw(st.booleans())
    a = (k,) if a_vector else (*batch.input_shapes[0], m, k)
    b = (k,) if b_vector else (*batch.input_shapes[1], k, n)
    return a, b


@SETTINGS
@given(shapes=matmul_shapes(), seed=seeds)
def test_matmul(shapes: Any, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = (uniform(rng, s) for s in shapes)
    check_vjp("MatMul", [("A", a), ("B", b)], ["A", "B"], seed=seed)


@SETTINGS
@given(
    m=st.integers(1, 3),
    k=st.integers(1, 3),
    n=st.integers(1, 3),
    trans_a=st.booleans(),
    trans_b=st.booleans(),
    alpha=st.floats(-2, 2),
    beta=st.sampled_from([0.0, 1.0, -0.5]),
    c_form=st.sampled_from(["none", "scalar", "row", "column", "vector", "full"]),
    seed=seeds,
)
def test_gemm(
    m: int,
    k: int,
    n: int,
    trans_a: bool,
    trans_b: bool,
    alpha: float,
    beta: float,
    c_form: str,
    seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    a = uniform(rng, (k, m) if trans_a else (m, k))
    b = uniform(rng, (n, k) if trans_b else (k, n))
    c_shape = {"scalar": (), "row": (1, n), "column": (m, 1), "vector": (n,), "full": (m, n)}
    inputs = [("A", a), ("B", b)]
    if c_form != "none":
        inputs.append(("C", uniform(rng, c_shape[c_form])))
    attrs = {"transA": int(trans_a), "transB": int(trans_b), "alpha": alpha, "beta": beta}
    check_vjp("Gemm", inputs, [n for n, _ in inputs], attrs=attrs, seed=seed)


# -- shape manipulation ---------------------------------------------------------------------------

shapes_1_to_4 = hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=3)


@SETTINGS
@given(shape=shapes_1_to_4, seed=seeds, data=st.data())
def test_transpose(shape: tuple[int, ...], seed: int, data: st.DataObject) -> None:
    x = uniform(np.random.default_rng(seed), shape)
    perm = data.draw(st.none() | st.permutations(range(len(shape))))
    attrs = {} if perm is None else {"perm": list(perm)}
    check_vjp("Transpose", [("X", x)], ["X"], attrs=attrs, seed=seed)


@SETTINGS
@given(shape=shapes_1_to_4, seed=seeds, data=st.data())
def test_reshape(shape: tuple[int, ...], seed: int, data: st.DataObject) -> None:
    x = uniform(np.random.default_rng(seed), shape)
    target = [x.size] if len(shape) == 1 else [shape[0], -1]
    if data.draw(st.booleans()):
        target = [0, *target[1:]] if len(target) > 1 else target  # 0 copies the input's dim
    check_vjp("Reshape", [("X", x), ("shape", np.array(target, np.int64))], ["X"], seed=seed)


@SETTINGS
@given(shape=shapes_1_to_4, seed=seeds, data=st.data())
def test_flatten(shape: tuple[int, ...], seed: int, data: st.DataObject) -> None:
    x = uniform(np.random.default_rng(seed), shape)
    axis = data.draw(st.integers(-len(shape), len(shape)))
    check_vjp("Flatten", [("X", x)], ["X"], attrs={"axis": axis}, seed=seed)


@SETTINGS
@given(shape=shapes_1_to_4, seed=seeds, data=st.data())
def test_squeeze_and_unsqueeze(shape: tuple[int, ...], seed: int, data: st.DataObject) -> None:
    x = uniform(np.random.default_rng(seed), shape)
    ones = [i for i, d in enumerate(shape) if d == 1]
    if ones:
        axes = data.draw(st.lists(st.sampled_from(ones), min_size=1, unique=True))
        check_vjp("Squeeze", [("X", x), ("axes", np.array(axes, np.int64))], ["X"], seed=seed)
    check_vjp("Squeeze", [("X", x)], ["X"], seed=seed)  # every size-1 axis
    count = data.draw(st.integers(1, 2))
    rank = len(shape) + count
    new = data.draw(
        st.lists(
            st.integers(-rank, rank - 1),
            min_size=count,
            max_size=count,
            unique_by=lambda a: a % rank,
        )
    )
    check_vjp("Unsqueeze", [("X", x), ("axes", np.array(new, np.int64))], ["X"], seed=seed)
    check_vjp(
        "Squeeze", [("X", x)], ["X"], attrs={"axes": ones} if ones else {}, opset=11, seed=seed
    )


@SETTINGS
@given(shape=small_shapes, seed=seeds)
def test_identity(shape: tuple[int, ...], seed: int) -> None:
    x = uniform(np.random.default_rng(seed), shape)
    check_vjp("Identity", [("X", x)], ["X"], seed=seed)


@st.composite
def concat_cases(draw: st.DrawFn) -> tuple[list[tuple[int, ...]], int]:
    base = draw(shapes_1_to_4)
    axis = draw(st.integers(-len(base), len(base) - 1))
    count = draw(st.integers(1, 3))
    shapes = []
    for _ in range(count):
        shape = list(base)
        shape[axis] = draw(st.integers(1, 3))
        shapes.append(tuple(shape))
    return shapes, axis


@SETTINGS
@given(case=concat_cases(), seed=seeds)
def test_concat(case: Any, seed: int) -> None:
    shapes, axis = case
    rng = np.random.default_rng(seed)
    inputs = [(f"X{i}", uniform(rng, s)) for i, s in enumerate(shapes)]
    check_vjp("Concat", inputs, [n for n, _ in inputs], attrs={"axis": axis}, seed=seed)


@st.composite
def slice_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], list[list[int]]]:
    """Slices with negative, out-of-range and backward bounds on some axes."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    axes = draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True))
    rows: list[list[int]] = [[], [], [], []]  # starts, ends, axes, steps
    for axis in axes:
        dim = shape[axis]
        step = draw(st.sampled_from([1, 2, -1, -2]))
        rows[0].append(draw(st.integers(-dim - 2, dim + 2)))
        rows[1].append(draw(st.integers(-dim - 2, dim + 2)))
        rows[2].append(axis - len(shape) if draw(st.booleans()) else axis)
        rows[3].append(step)
    return shape, rows


@SETTINGS
@given(case=slice_cases(), seed=seeds)
def test_slice(case: Any, seed: int) -> None:
    shape, (starts, ends, axes, steps) = case
    x = uniform(np.random.default_rng(seed), shape)
    ints = [np.array(v, np.int64) for v in (starts, ends, axes, steps)]
    inputs = [
        ("X", x),
        ("starts", ints[0]),
        ("ends", ints[1]),
        ("axes", ints[2]),
        ("steps", ints[3]),
    ]
    check_vjp("Slice", inputs, ["X"], seed=seed)


def test_slice_with_attributes_before_opset_10() -> None:
    x = uniform(np.random.default_rng(1), (3, 4))
    check_vjp(
        "Slice",
        [("X", x)],
        ["X"],
        attrs={"starts": [1, -3], "ends": [10, -1], "axes": [0, 1]},
        opset=9,
    )


@st.composite
def gather_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], int, np.ndarray]:
    shape = draw(shapes_1_to_4)
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    dim = shape[axis]
    index_shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=4))
    indices = draw(hnp.arrays(np.int64, index_shape, elements=st.integers(-dim, dim - 1)))
    return shape, axis, indices  # repeated indices included: their cotangents add up


@SETTINGS
@given(case=gather_cases(), seed=seeds)
def test_gather(case: Any, seed: int) -> None:
    shape, axis, indices = case
    x = uniform(np.random.default_rng(seed), shape)
    check_vjp("Gather", [("X", x), ("I", indices)], ["X"], attrs={"axis": axis}, seed=seed)


@SETTINGS
@given(shape=shapes_1_to_4, seed=seeds, data=st.data())
def test_gather_elements(shape: tuple[int, ...], seed: int, data: st.DataObject) -> None:
    axis = data.draw(st.integers(0, len(shape) - 1))
    # Shorter than the data on any axis (as onnxruntime takes them), longer on the axis.
    index_shape = tuple(
        data.draw(st.integers(1, 3)) if i == axis else data.draw(st.integers(1, d))
        for i, d in enumerate(shape)
    )
    dim = shape[axis]
    indices = data.draw(hnp.arrays(np.int64, index_shape, elements=st.integers(-dim, dim - 1)))
    x = uniform(np.random.default_rng(seed), shape)
    check_vjp("GatherElements", [("X", x), ("I", indices)], ["X"], attrs={"axis": axis}, seed=seed)


@SETTINGS
@given(shape=shapes_1_to_4, seed=seeds, data=st.data())
def test_gather_nd(shape: tuple[int, ...], seed: int, data: st.DataObject) -> None:
    depth = data.draw(st.integers(1, len(shape)))
    rows = data.draw(st.integers(1, 4))
    columns = [
        data.draw(hnp.arrays(np.int64, (rows,), elements=st.integers(0, shape[i] - 1)))
        for i in range(depth)
    ]
    indices = np.stack(columns, axis=-1)
    x = uniform(np.random.default_rng(seed), shape)
    check_vjp("GatherND", [("X", x), ("I", indices)], ["X"], seed=seed)


@SETTINGS
@given(shapes=broadcast_pairs, seed=seeds)
def test_expand(shapes: Any, seed: int) -> None:
    x_shape, target = shapes.input_shapes
    x = uniform(np.random.default_rng(seed), x_shape)
    check_vjp("Expand", [("X", x), ("shape", np.array(target, np.int64))], ["X"], seed=seed)


@SETTINGS
@given(shape=shapes_1_to_4, seed=seeds, data=st.data())
def test_tile(shape: tuple[int, ...], seed: int, data: st.DataObject) -> None:
    repeats = [data.draw(st.integers(1, 3)) for _ in shape]
    x = uniform(np.random.default_rng(seed), shape)
    check_vjp("Tile", [("X", x), ("repeats", np.array(repeats, np.int64))], ["X"], seed=seed)


@SETTINGS
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3), seed=seeds)
def test_where(shapes: Any, seed: int) -> None:
    rng = np.random.default_rng(seed)
    c_shape, x_shape, y_shape = shapes.input_shapes
    condition = rng.random(c_shape) < 0.5
    inputs = [("C", condition), ("X", uniform(rng, x_shape)), ("Y", uniform(rng, y_shape))]
    check_vjp("Where", inputs, ["X", "Y"], seed=seed)


def test_cast_between_floats_passes_the_cotangent_back() -> None:
    """Cast float -> double: d/dx sum(double(x) * R) = R in float (hand-derived)."""
    x = np.array([[0.5, -1.25], [3.0, 2.0]], np.float32)
    weight = np.array([[1.5, -2.0], [0.25, 4.0]])
    feeds = {"X": x, "R": weight}
    nodes = [
        helper.make_node("Cast", ["X"], ["out"], to=TensorProto.DOUBLE),
        helper.make_node("Mul", ["out", "R"], ["weighted"]),
        helper.make_node("ReduceSum", ["weighted"], ["loss"], keepdims=0),
        helper.make_node(
            "Gradient", ["X", "R"], ["dX"], domain=TRAINING, xs=["X"], zs=["R"], y="loss"
        ),
    ]
    got = oc.Evaluator(_model(nodes, feeds, ["dX"], OPSET)).run(feeds)["dX"]
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, weight.astype(np.float32))


@SETTINGS
@given(shape=small_shapes, seed=seeds)
def test_cast_like_double_to_double(shape: tuple[int, ...], seed: int) -> None:
    rng = np.random.default_rng(seed)
    check_vjp(
        "CastLike", [("X", uniform(rng, shape)), ("T", np.zeros((), np.float64))], ["X"], seed=seed
    )


# -- reductions -----------------------------------------------------------------------------------


@st.composite
def reduce_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], list[int] | None, int]:
    shape = draw(shapes_1_to_4)
    axes = draw(st.none() | st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True))
    if axes is not None:
        axes = [a - len(shape) if draw(st.booleans()) else a for a in axes]
    return shape, axes, draw(st.integers(0, 1))


_REDUCE_AXES_INPUT = {
    "ReduceSum": 13,
    "ReduceMean": 18,
    "ReduceSumSquare": 18,
    "ReduceMax": 18,
    "ReduceMin": 18,
}


@SETTINGS
@given(
    case=reduce_cases(),
    seed=seeds,
    op=st.sampled_from(sorted(_REDUCE_AXES_INPUT)),
    axes_as_input=st.booleans(),
)
def test_reductions(case: Any, seed: int, op: str, axes_as_input: bool) -> None:
    shape, axes, keepdims = case
    rng = np.random.default_rng(seed)
    x = distinct(rng, [shape])[0] if op in ("ReduceMax", "ReduceMin") else uniform(rng, shape)
    inputs: list[tuple[str, np.ndarray | None]] = [("X", x)]
    attrs: dict[str, Any] = {"keepdims": keepdims}
    if axes_as_input:
        opset = max(_REDUCE_AXES_INPUT[op], OPSET)
        if axes is not None:
            inputs.append(("axes", np.array(axes, np.int64)))
    else:
        opset = _REDUCE_AXES_INPUT[op] - 1 if op != "ReduceSum" else 11
        if axes is not None:
            attrs["axes"] = axes
    check_vjp(op, inputs, ["X"], attrs=attrs, opset=opset, seed=seed)


def test_reduce_with_empty_axes_and_noop_is_the_identity() -> None:
    x = uniform(np.random.default_rng(2), (2, 3))
    check_vjp(
        "ReduceSum",
        [("X", x), ("axes", np.zeros((0,), np.int64))],
        ["X"],
        attrs={"noop_with_empty_axes": 1},
    )
    check_vjp(
        "ReduceMax",
        [("X", x), ("axes", np.zeros((0,), np.int64))],
        ["X"],
        attrs={"noop_with_empty_axes": 1},
    )


def test_reduce_max_tie_goes_to_the_first_maximum() -> None:
    """Hand-derived subgradient: the first of the tied maxima receives the cotangent."""
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    feeds = {"X": x}
    nodes = [
        helper.make_node("ReduceMax", ["X"], ["m"], axes=[1], keepdims=0),
        helper.make_node("ReduceSum", ["m"], ["loss"], keepdims=0),
        helper.make_node("Gradient", ["X"], ["dX"], domain=TRAINING, xs=["X"], y="loss"),
    ]
    got = oc.Evaluator(_model(nodes, feeds, ["dX"], 13)).run(feeds)["dX"]
    np.testing.assert_array_equal(got, [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])


# -- convolution and pooling ----------------------------------------------------------------------


@st.composite
def conv_cases(draw: st.DrawFn) -> dict[str, Any]:
    nd = draw(st.integers(1, 2))
    group = draw(st.integers(1, 2))
    c = group * draw(st.integers(1, 2))
    m = group * draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(nd)]
    dilations = [draw(st.integers(1, 2)) for _ in range(nd)]
    strides = [draw(st.integers(1, 2)) for _ in range(nd)]
    auto_pad = draw(st.sampled_from(["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]))
    pads = [draw(st.integers(0, 2)) for _ in range(2 * nd)]
    # Each padded spatial axis must hold at least one dilated window.
    spatial = [
        draw(st.integers(max(1, (k - 1) * d + 1 - (pads[i] + pads[nd + i])), 5))
        for i, (k, d) in enumerate(zip(kernel, dilations))
    ]
    if auto_pad == "VALID":
        spatial = [max(s, (k - 1) * d + 1) for s, k, d in zip(spatial, kernel, dilations)]
    attrs: dict[str, Any] = {
        "kernel_shape": kernel,
        "strides": strides,
        "group": group,
        "auto_pad": auto_pad,
    }
    if auto_pad == "NOTSET":
        attrs["pads"] = pads
    if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        attrs["dilations"] = dilations  # SAME padding with dilations is not in the standard
    return {
        "x": (draw(st.integers(1, 2)), c, *spatial),
        "w": (m, c // group, *kernel),
        "attrs": attrs,
        "bias": draw(st.booleans()),
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=conv_cases(), seed=seeds)
def test_conv(case: dict[str, Any], seed: int) -> None:
    rng = np.random.default_rng(seed)
    inputs = [("X", uniform(rng, case["x"])), ("W", uniform(rng, case["w"]))]
    if case["bias"]:
        inputs.append(("B", uniform(rng, (case["w"][0],))))
    check_vjp("Conv", inputs, [n for n, _ in inputs], attrs=case["attrs"], seed=seed)


@st.composite
def pool_cases(draw: st.DrawFn) -> dict[str, Any]:
    nd = draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(nd)]
    dilations = [draw(st.integers(1, 2)) for _ in range(nd)]
    strides = [draw(st.integers(1, 2)) for _ in range(nd)]
    # Pads smaller than the kernel, so no window lies entirely on the padding.
    pads = [draw(st.integers(0, k - 1)) for k in kernel] * 2
    spatial = [draw(st.integers((k - 1) * d + 1, 5)) for k, d in zip(kernel, dilations)]
    attrs: dict[str, Any] = {
        "kernel_shape": kernel,
        "strides": strides,
        "pads": pads,
        "dilations": dilations,
        "ceil_mode": int(draw(st.booleans())),
    }
    return {"x": (draw(st.integers(1, 2)), draw(st.integers(1, 2)), *spatial), "attrs": attrs}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=pool_cases(), seed=seeds)
def test_max_pool(case: dict[str, Any], seed: int) -> None:
    x = distinct(np.random.default_rng(seed), [case["x"]])[0]
    check_vjp("MaxPool", [("X", x)], ["X"], attrs=case["attrs"], outputs=2, seed=seed)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=pool_cases(), seed=seeds, include_pad=st.booleans())
def test_average_pool(case: dict[str, Any], seed: int, include_pad: bool) -> None:
    x = uniform(np.random.default_rng(seed), case["x"])
    attrs = {**case["attrs"], "count_include_pad": int(include_pad)}
    check_vjp("AveragePool", [("X", x)], ["X"], attrs=attrs, seed=seed)


def test_pools_with_auto_pad() -> None:
    x = distinct(np.random.default_rng(4), [(1, 2, 5, 4)])[0]
    for auto_pad in ("SAME_UPPER", "SAME_LOWER", "VALID"):
        attrs = {"kernel_shape": [2, 3], "strides": [2, 1], "auto_pad": auto_pad}
        check_vjp("MaxPool", [("X", x)], ["X"], attrs=attrs)
        check_vjp("AveragePool", [("X", x)], ["X"], attrs=attrs)


@SETTINGS
@given(
    shape=hnp.array_shapes(min_dims=3, max_dims=4, min_side=1, max_side=3),
    seed=seeds,
    op=st.sampled_from(["GlobalAveragePool", "GlobalMaxPool"]),
)
def test_global_pools(shape: tuple[int, ...], seed: int, op: str) -> None:
    x = distinct(np.random.default_rng(seed), [shape])[0]
    check_vjp(op, [("X", x)], ["X"], seed=seed)


# -- the table ------------------------------------------------------------------------------------


def test_every_rule_has_a_case() -> None:
    """COVERED lists the operators with a case in this file: exactly the rule table's."""
    keys = default_vjp_rules().keys()  # a list of (domain, op_type, since_version)
    registered = {op for domain, op, _ in keys if domain == ""}
    assert registered == COVERED


def test_registry_lookup_prefers_the_exact_version() -> None:
    rules = VjpRegistry()

    def every(call: Any) -> list[Any]:
        return []

    def seven(call: Any) -> list[Any]:
        return []

    rules.add("Op", every)
    rules.add("Op", seven, since=7)
    assert rules.lookup("", "Op", 7) is seven
    assert rules.lookup("", "Op", 9) is every
    assert ("", "Op", ALL_VERSIONS) in rules
    with pytest.raises(ValueError, match="registered twice"):
        rules.add("Op", seven, since=7)
