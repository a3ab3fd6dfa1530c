"""The Gradient operator (ai.onnx.preview.training) end to end: models with Gradient nodes.

Oracles: gradients derived by hand and written here in float64 numpy (the MLP's
backpropagation, tanh(x) * x read twice, held-constant zs ...), and central finite differences
in float64 of the model's own forward pass (the CNN). The operator-by-operator rules are
checked in test_vjp.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper

import onnxcraft as oc
from onnxcraft.errors import EvaluationError, InferenceError
from onnxcraft.ops.gradient.kernels import gradient
from onnxcraft.ops.kernel_api import KernelContext
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.opset.ai.onnx.preview.training import v1 as tr
from tests.evaluate.test_vjp import central_difference

TRAINING = "ai.onnx.preview.training"
F64 = {"rtol": 1e-10, "atol": 1e-12}  # hand-derived float64 formulas vs the kernels
FD = {"rtol": 1e-6, "atol": 1e-6}  # finite differences (see test_vjp.py for the budget)


def _info(name: str, value: np.ndarray | None, elem: int = TensorProto.DOUBLE) -> Any:
    if value is None:
        return helper.make_tensor_value_info(name, elem, None)
    return helper.make_tensor_value_info(
        name, helper.np_dtype_to_tensor_dtype(value.dtype), value.shape
    )


def _model(
    nodes: list[Any],
    feeds: dict[str, np.ndarray],
    outputs: list[str],
    *,
    initializers: dict[str, np.ndarray] | None = None,
    functions: list[Any] | None = None,
    opset: int = 21,
) -> Any:
    graph = helper.make_graph(
        nodes,
        "gradient_case",
        [_info(name, value) for name, value in feeds.items()],
        [_info(name, None) for name in outputs],
        initializer=[
            helper.make_tensor(
                name,
                helper.np_dtype_to_tensor_dtype(value.dtype),
                value.shape,
                value.reshape(-1).tolist(),
            )
            for name, value in (initializers or {}).items()
        ],
    )
    imports = [helper.make_opsetid("", opset), helper.make_opsetid(TRAINING, 1)]
    if functions:
        imports.append(helper.make_opsetid("custom", 1))
    return helper.make_model(graph, opset_imports=imports, functions=functions or [])


def _grad(inputs: list[str], outputs: list[str], **attrs: Any) -> Any:
    return helper.make_node("Gradient", inputs, outputs, domain=TRAINING, **attrs)


def _run(model: Any, feeds: dict[str, np.ndarray]) -> dict[str, Any]:
    return oc.Evaluator(model).run(feeds)


# -- the standard's own examples ------------------------------------------------------------------


def test_the_standards_scalar_examples() -> None:
    """c = a + b, d = (a + b) * a at a = 1, b = 2: dc/da = dc/db = 1, dd/da = 2a + b, dd/db = a."""
    a, b = np.array(1.0, np.float32), np.array(2.0, np.float32)
    feeds = {"a": a, "b": b}
    nodes = [
        helper.make_node("Add", ["a", "b"], ["c"]),
        helper.make_node("Mul", ["c", "a"], ["d"]),
        _grad(["a", "b"], ["dc_da", "dc_db"], xs=["a", "b"], y="c"),
        _grad(["a", "b"], ["dd_da", "dd_db"], xs=["a", "b"], y="d"),
    ]
    got = _run(_model(nodes, feeds, ["dc_da", "dc_db", "dd_da", "dd_db"], opset=12), feeds)
    assert all(isinstance(v, np.ndarray) and v.dtype == np.float32 for v in got.values())
    assert (got["dc_da"], got["dc_db"]) == (1.0, 1.0)
    assert (got["dd_da"], got["dd_db"]) == (2 * a + b, a)


# -- an MLP: Gemm, Relu, a mean squared error --------------------------------------------------


def _mlp_nodes() -> list[Any]:
    return [
        helper.make_node("Gemm", ["X", "W1", "b1"], ["pre"]),
        helper.make_node("Relu", ["pre"], ["hidden"]),
        helper.make_node("Gemm", ["hidden", "W2", "b2"], ["out"], transB=1, alpha=0.5),
        helper.make_node("Sub", ["out", "T"], ["err"]),
        helper.make_node("Mul", ["err", "err"], ["sq"]),
        helper.make_node("ReduceMean", ["sq"], ["loss"], keepdims=0),
        _grad(
            ["W1", "b1", "W2", "b2", "X", "T"],
            ["dW1", "db1", "dW2", "db2"],
            xs=["W1", "b1", "W2", "b2"],
            zs=["X", "T"],
            y="loss",
        ),
    ]


def _mlp_feeds(dtype: Any) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    values = {
        "X": rng.normal(size=(6, 4)),
        "W1": rng.normal(size=(4, 5)),
        "b1": rng.normal(size=(5,)),
        "W2": rng.normal(size=(3, 5)),
        "b2": rng.normal(size=(3,)),
        "T": rng.normal(size=(6, 3)),
    }
    return {k: v.astype(dtype) for k, v in values.items()}


def _mlp_backprop(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The MLP's gradients by hand: out = 0.5 * relu(X W1 + b1) W2^T + b2, mean((out - T)^2)."""
    pre = v["X"] @ v["W1"] + v["b1"]
    hidden = np.maximum(pre, 0)
    out = 0.5 * hidden @ v["W2"].T + v["b2"]
    d_out = 2 * (out - v["T"]) / out.size
    d_hidden = 0.5 * d_out @ v["W2"]
    d_pre = d_hidden * (pre > 0)
    return {
        "dW1": v["X"].T @ d_pre,
        "db1": d_pre.sum(axis=0),
        "dW2": 0.5 * d_out.T @ hidden,
        "db2": d_out.sum(axis=0),
    }


def test_mlp_matches_hand_derived_backpropagation() -> None:
    feeds = _mlp_feeds(np.float64)
    outputs = ["loss", "dW1", "db1", "dW2", "db2"]
    got = _run(_model(_mlp_nodes(), feeds, outputs), feeds)
    expected = _mlp_backprop(feeds)
    for name, value in expected.items():
        assert got[name].shape == feeds[name[1:]].shape
        np.testing.assert_allclose(got[name], value, **F64, err_msg=name)


def test_mlp_in_float32_keeps_the_type_of_xs() -> None:
    feeds = _mlp_feeds(np.float32)
    got = _run(_model(_mlp_nodes(), feeds, ["dW1", "db1", "dW2", "db2"]), feeds)
    expected = _mlp_backprop({k: v.astype(np.float64) for k, v in feeds.items()})
    for name, value in expected.items():
        assert got[name].dtype == np.float32
        # float32 rounding of sums of a few dozen O(1) terms, relative to the largest entry
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-5 * np.abs(value).max())


def test_mlp_built_with_the_dsl() -> None:
    """The same network through the DSL: the outputs are typed like xs when built."""
    feeds = _mlp_feeds(np.float32)
    x = oc.arg("X", np.float32, (6, 4))
    t = oc.arg("T", np.float32, (6, 3))
    w1, b1 = oc.arg("W1", np.float32, (4, 5)), oc.arg("b1", np.float32, (5,))
    w2, b2 = oc.arg("W2", np.float32, (3, 5)), oc.arg("b2", np.float32, (3,))
    hidden = op.Relu(op.Gemm(x, w1, b1))
    err = op.Sub(op.Gemm(hidden, w2, b2, transB=1, alpha=0.5), t)
    loss = op.ReduceMean(op.Mul(err, err), keepdims=0).named("loss")
    grads = tr.Gradient(
        w1,
        b1,
        w2,
        b2,
        x,
        t,
        xs=["W1", "b1", "W2", "b2"],
        zs=["X", "T"],
        y="loss",
        outputs_count=4,
    )
    assert [g.type for g in grads] == [v.type for v in (w1, b1, w2, b2)]
    names = ["dW1", "db1", "dW2", "db2"]
    model = oc.build(
        inputs=[x, t, w1, b1, w2, b2], outputs={"loss": loss, **dict(zip(names, grads))}
    )
    got = oc.evaluate(model, feeds)
    expected = _mlp_backprop({k: v.astype(np.float64) for k, v in feeds.items()})
    for name in names:
        np.testing.assert_allclose(
            got[name], expected[name], rtol=1e-5, atol=1e-5 * np.abs(expected[name]).max()
        )


# -- a small CNN: Conv, MaxPool, Relu, Flatten, Gemm --------------------------------------------


def _cnn_nodes(forward_only: bool) -> list[Any]:
    nodes = [
        helper.make_node(
            "Conv",
            ["X", "K", "kb"],
            ["conv"],
            kernel_shape=[3, 3],
            pads=[1, 1, 1, 1],
            strides=[1, 2],
            dilations=[1, 1],
        ),
        helper.make_node("MaxPool", ["conv"], ["pool"], kernel_shape=[2, 2], strides=[2, 1]),
        helper.make_node("Relu", ["pool"], ["act"]),
        helper.make_node("Flatten", ["act"], ["flat"]),
        helper.make_node("Gemm", ["flat", "D", "db"], ["logits"]),
        helper.make_node("LogSoftmax", ["logits"], ["logp"], axis=1),
        helper.make_node("Mul", ["logp", "onehot"], ["picked"]),
        helper.make_node("ReduceSum", ["picked"], ["total"], keepdims=0),
        helper.make_node("Neg", ["total"], ["loss"]),
    ]
    if not forward_only:
        nodes.append(
            _grad(
                ["K", "kb", "D", "db", "X", "onehot"],
                ["dK", "dkb", "dD", "ddb"],
                xs=["K", "kb", "D", "db"],
                zs=["X", "onehot"],
                y="loss",
            )
        )
    return nodes


def test_cnn_matches_finite_differences() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 2, 6, 7))
    # conv: (2, 3, 6, 4); pool: (2, 3, 3, 3); flat: (2, 27)
    feeds = {
        "X": x,
        "K": rng.normal(size=(3, 2, 3, 3)),
        "kb": rng.normal(size=(3,)),
        "D": rng.normal(size=(27, 4)) * 0.3,
        "db": rng.normal(size=(4,)),
        "onehot": np.eye(4)[[1, 3]],
    }
    outputs = ["dK", "dkb", "dD", "ddb"]
    got = _run(_model(_cnn_nodes(False), feeds, outputs), feeds)
    forward = oc.Evaluator(_model(_cnn_nodes(True), feeds, ["loss"]))
    for name in ("K", "kb", "D", "db"):

        def loss(value: np.ndarray, name: str = name) -> float:
            return float(forward.run({**feeds, name: value})["loss"])

        np.testing.assert_allclose(
            got[f"d{name}"], central_difference(loss, feeds[name]), **FD, err_msg=name
        )


# -- how gradients flow -------------------------------------------------------------------------


def test_a_value_read_on_two_paths_accumulates() -> None:
    """y = sum(tanh(x) * x): dy/dx = tanh(x) + x * (1 - tanh(x)^2), both paths added."""
    x = np.array([[-1.5, 0.25, 2.0], [0.0, -0.5, 1.0]])
    nodes = [
        helper.make_node("Tanh", ["x"], ["t"]),
        helper.make_node("Mul", ["t", "x"], ["p"]),
        helper.make_node("ReduceSum", ["p"], ["y"], keepdims=0),
        _grad(["x"], ["dx"], xs=["x"], y="y"),
    ]
    got = _run(_model(nodes, {"x": x}, ["dx"]), {"x": x})["dx"]
    np.testing.assert_allclose(got, np.tanh(x) + x * (1 - np.tanh(x) ** 2), **F64)


def test_zs_are_held_constant_at_the_values_the_node_is_given() -> None:
    """y = sum(x * z * z): dy/dx = z^2 at the z the Gradient node receives, not the graph's."""
    x = np.array([1.0, 2.0, 3.0])
    z = np.array([0.5, -1.0, 2.0])
    z_at = np.array([3.0, 0.25, -2.0])
    x_at = np.array([7.0, 8.0, 9.0])
    feeds = {"x": x, "z": z, "x_at": x_at, "z_at": z_at}
    nodes = [
        helper.make_node("Mul", ["z", "z"], ["zz"]),
        helper.make_node("Mul", ["x", "zz"], ["p"]),
        helper.make_node("ReduceSum", ["p"], ["y"], keepdims=0),
        _grad(["x_at", "z_at"], ["dx"], xs=["x"], zs=["z"], y="y"),
    ]
    got = _run(_model(nodes, feeds, ["dx", "y"]), feeds)
    np.testing.assert_allclose(got["dx"], z_at**2, **F64)
    np.testing.assert_allclose(got["y"], np.sum(x * z * z), **F64)  # the graph is unchanged


def test_a_y_that_does_not_depend_on_an_x_gives_zeros() -> None:
    a = np.array([[1.0, -2.0]])
    b = np.array([3.0, 4.0, 5.0], np.float32)
    feeds = {"a": a, "b": b}
    nodes = [
        helper.make_node("Exp", ["a"], ["e"]),
        helper.make_node("ReduceSum", ["e"], ["y"], keepdims=0),
        _grad(["a", "b"], ["da", "db"], xs=["a", "b"], y="y"),
    ]
    got = _run(_model(nodes, feeds, ["da", "db"]), feeds)
    np.testing.assert_allclose(got["da"], np.exp(a), **F64)
    assert got["db"].dtype == np.float32
    np.testing.assert_array_equal(got["db"], np.zeros(3, np.float32))


def test_an_intermediate_x_cuts_the_graph_there() -> None:
    """xs may name an intermediate H: dY/dH at the value given, whatever produced H."""
    w = np.array([[1.0, 2.0], [3.0, 4.0]])
    h_at = np.array([[0.5, -1.0]])
    feeds = {"W": w, "X": np.array([[1.0, 1.0]]), "H_at": h_at}
    nodes = [
        helper.make_node("MatMul", ["X", "W"], ["H"]),
        helper.make_node("Mul", ["H", "H"], ["sq"]),
        helper.make_node("ReduceSum", ["sq"], ["Y"], keepdims=0),
        _grad(["H_at"], ["dH"], xs=["H"], y="Y"),
    ]
    got = _run(_model(nodes, feeds, ["dH"]), feeds)["dH"]
    np.testing.assert_allclose(got, 2 * h_at, **F64)


def test_a_non_scalar_y_is_differentiated_as_the_sum_of_its_elements() -> None:
    """The standard does not require a scalar y: the seed is ones, so dy/dx = 2x here."""
    x = np.array([[1.0, -2.0, 0.5]])
    nodes = [helper.make_node("Mul", ["x", "x"], ["y"]), _grad(["x"], ["dx"], xs=["x"], y="y")]
    got = _run(_model(nodes, {"x": x}, ["dx"]), {"x": x})["dx"]
    np.testing.assert_allclose(got, 2 * x, **F64)


def test_y_may_be_an_x_itself() -> None:
    x = np.array([1.0, 2.0])
    got = _run(_model([_grad(["x"], ["dx"], xs=["x"], y="x")], {"x": x}, ["dx"]), {"x": x})
    np.testing.assert_array_equal(got["dx"], np.ones(2))


def test_integer_values_and_operators_off_the_path_are_just_evaluated() -> None:
    """Shape, Cast to int64, Elu on a z: no rule needed, no gradient through them."""
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    z = np.array([0.5, -0.5, 1.0])
    feeds = {"x": x, "z": z}
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),  # integer: depends on x, carries nothing
        helper.make_node("Reshape", ["x", "shape"], ["same"]),
        helper.make_node("Elu", ["z"], ["ez"]),  # no rule, but not on the path from x
        helper.make_node("Cast", ["x"], ["xi"], to=TensorProto.INT64),
        helper.make_node("Cast", ["xi"], ["xf"], to=TensorProto.DOUBLE),  # a float from ints
        helper.make_node("Mul", ["same", "ez"], ["p"]),
        helper.make_node("Add", ["p", "xf"], ["q"]),
        helper.make_node("ReduceSum", ["q"], ["y"], keepdims=0),
        _grad(["x", "z"], ["dx"], xs=["x"], zs=["z"], y="y"),
    ]
    got = _run(_model(nodes, feeds, ["dx"]), feeds)["dx"]
    elu = np.where(z > 0, z, np.expm1(z))
    np.testing.assert_allclose(got, np.broadcast_to(elu, x.shape), **F64)


def test_graph_constants_are_read_where_y_needs_them() -> None:
    x = np.array([1.0, -1.0])
    nodes = [
        helper.make_node("Mul", ["x", "scale"], ["p"]),
        helper.make_node("ReduceSum", ["p"], ["y"], keepdims=0),
        _grad(["x"], ["dx"], xs=["x"], y="y"),
    ]
    model = _model(nodes, {"x": x}, ["dx"], initializers={"scale": np.array([2.5, -4.0])})
    np.testing.assert_array_equal(_run(model, {"x": x})["dx"], [2.5, -4.0])


def test_a_function_body_is_differentiated_node_by_node() -> None:
    """y = sum(x * sigmoid(x)) through a local function: s + x * s * (1 - s)."""
    body = [
        helper.make_node("Sigmoid", ["v"], ["s"]),
        helper.make_node("Mul", ["v", "s"], ["r"]),
    ]
    function = helper.make_function(
        "custom", "Swish", ["v"], ["r"], body, [helper.make_opsetid("", 21)]
    )
    x = np.array([-2.0, 0.5, 3.0])
    nodes = [
        helper.make_node("Swish", ["x"], ["sw"], domain="custom"),
        helper.make_node("ReduceSum", ["sw"], ["y"], keepdims=0),
        _grad(["x"], ["dx"], xs=["x"], y="y"),
    ]
    got = _run(_model(nodes, {"x": x}, ["dx"], functions=[function]), {"x": x})["dx"]
    s = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(got, s + x * s * (1 - s), **F64)


def test_a_gradient_inside_a_loop_body_differentiates_that_body() -> None:
    """Gradient nodes see the graph they sit in, a subgraph included."""
    x = np.array([1.0, 2.0])
    body = helper.make_graph(
        [
            helper.make_node("Mul", ["v", "v"], ["vv"]),
            helper.make_node("ReduceSum", ["vv"], ["s"], keepdims=0),
            _grad(["v"], ["dv"], xs=["v"], y="s"),
            helper.make_node("Identity", ["cond"], ["cond_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v", TensorProto.DOUBLE, [2]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("dv", TensorProto.DOUBLE, [2]),
        ],
    )
    feeds = {"x": x, "trips": np.array(3, np.int64)}
    nodes = [helper.make_node("Loop", ["trips", "", "x"], ["out"], body=body)]
    got = _run(_model(nodes, feeds, ["out"]), feeds)["out"]
    np.testing.assert_array_equal(got, x * 8)  # v -> 2v three times


# -- errors -----------------------------------------------------------------------------------


def _error(nodes: list[Any], feeds: dict[str, np.ndarray], outputs: list[str]) -> str:
    with pytest.raises(EvaluationError) as info:
        _run(_model(nodes, feeds, outputs), feeds)
    return str(info.value)


def test_an_operator_without_a_rule_on_the_path_is_named() -> None:
    x = np.array([1.0, -1.0])
    nodes = [
        helper.make_node("Elu", ["x"], ["e"], name="act"),
        helper.make_node("ReduceSum", ["e"], ["y"], keepdims=0),
        _grad(["x"], ["dx"], xs=["x"], y="y"),
    ]
    message = _error(nodes, {"x": x}, ["dx"])
    assert "Elu node 'act'" in message
    assert "no vector-Jacobian product rule" in message


def test_control_flow_on_the_path_is_an_error() -> None:
    branch = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["nx"])],
        "then",
        [],
        [helper.make_tensor_value_info("nx", TensorProto.DOUBLE, [2])],
    )
    feeds = {"x": np.array([1.0, 2.0]), "c": np.array(True)}
    nodes = [
        helper.make_node("If", ["c"], ["r"], then_branch=branch, else_branch=branch),
        helper.make_node("ReduceSum", ["r"], ["y"], keepdims=0),
        _grad(["x", "c"], ["dx"], xs=["x"], zs=["c"], y="y"),
    ]
    assert "If node" in _error(nodes, feeds, ["dx"])


@pytest.mark.parametrize(
    ("attrs", "inputs", "expected"),
    [
        ({"xs": ["nope"], "y": "y"}, ["x"], r"xs names \['nope'\]"),
        ({"xs": ["x"], "y": "missing"}, ["x"], r"y names \['missing'\]"),
        ({"xs": ["x"], "zs": ["ghost"], "y": "y"}, ["x", "x"], r"zs names \['ghost'\]"),
        ({"xs": ["x", "x"], "y": "y"}, ["x", "x"], "distinct tensors"),
        ({"xs": ["x"], "y": "y"}, ["x", "x"], "expects 1 inputs"),
        ({"xs": ["k"], "y": "y"}, ["k"], "must be a float16, float or double"),
        (
            {"xs": ["x"], "zs": ["k"], "y": "k2"},
            ["x", "k"],
            "y 'k2' must be a float16, float or double",
        ),
        ({"xs": ["x"], "y": "y2"}, ["x"], "'other', a graph input named neither in xs nor in zs"),
    ],
)
def test_bad_requests(attrs: dict[str, Any], inputs: list[str], expected: str) -> None:
    feeds = {"x": np.array([1.0, 2.0]), "k": np.array([1, 2]), "other": np.array([3.0, 4.0])}
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["y"], keepdims=0),
        helper.make_node("Mul", ["x", "other"], ["y2"]),
        helper.make_node("Add", ["k", "k"], ["k2"]),
        _grad(inputs, ["d"], **attrs),
    ]
    with pytest.raises(EvaluationError, match=expected):
        _run(_model(nodes, feeds, ["d"]), feeds)


def test_second_order_is_not_supported() -> None:
    """Differentiating a Gradient output needs a rule for Gradient itself: a clear error."""
    x = np.array([1.0, 2.0])
    nodes = [
        helper.make_node("Mul", ["x", "x"], ["sq"]),
        helper.make_node("ReduceSum", ["sq"], ["y"], keepdims=0),
        _grad(["x"], ["dx"], xs=["x"], y="y", name="first"),
        helper.make_node("ReduceSum", ["dx"], ["s"], keepdims=0),
        _grad(["x"], ["ddx"], xs=["x"], y="s", name="second"),
    ]
    message = _error(nodes, {"x": x}, ["ddx"])
    assert "Gradient node 'first'" in message and "no vector-Jacobian product rule" in message


def test_y_may_not_depend_on_the_node_itself() -> None:
    x = np.array([1.0, 2.0])
    nodes = [
        _grad(["x"], ["dx"], xs=["x"], y="y", name="g"),
        helper.make_node("Mul", ["dx", "x"], ["p"]),
        helper.make_node("ReduceSum", ["p"], ["y"], keepdims=0),
    ]
    assert "depends on the outputs of this node itself" in _error(nodes, {"x": x}, ["dx"])


def test_the_kernel_needs_its_graph() -> None:
    ctx = KernelContext(TRAINING, "Gradient", 1, 1, 1, (True,))
    with pytest.raises(EvaluationError, match="needs the graph around the node"):
        gradient(ctx, np.array([1.0]), xs=["x"], y="y")


# -- type inference -----------------------------------------------------------------------------


def test_inference_types_each_output_as_its_x() -> None:
    w = oc.arg("W", np.float64, ("N", 3))
    z = oc.arg("Z", np.int64, (2,))
    (dw,) = tr.Gradient(w, z, xs=["W"], zs=["Z"], y="loss", outputs_count=1)
    assert dw.type == w.type


def test_inference_rejects_an_integer_x() -> None:
    k = oc.arg("K", np.int64, (2,))
    with pytest.raises(InferenceError, match="must be a float16, float or double"):
        tr.Gradient(k, xs=["K"], y="loss", outputs_count=1)
