"""Subgraphs, functions, custom operators, inline and operator overloading."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op
from tests.core.oracle import onnx_model, verify

F32 = np.float32


def test_if_branches_use_outer_values() -> None:
    X = oc.arg("X", F32, (3,))
    cond = op.Greater(op.ReduceSum(X, keepdims=0), 0.0)
    y = op.If(cond, then_branch=lambda: [op.Neg(X)], else_branch=lambda: [X])
    assert isinstance(y, tuple) and y[0].type == oc.Tensor(F32, (3,))
    model = oc.build([X], {"y": y[0]})
    verify(model, {"X": np.array([1, 2, 3], F32)}, {"y": -np.array([1, 2, 3], F32)})
    verify(model, {"X": np.array([-1, -2, 0], F32)}, {"y": np.array([-1, -2, 0], F32)})


def test_loop_accumulates() -> None:
    X = oc.arg("X", F32, (2,))
    n = np.array(4, np.int64)
    out = op.Loop(n, np.array(True), X, body=lambda i, c, v: [c, op.Add(v, 1.0)])
    model = oc.build([X], {"y": out[0]})
    verify(model, {"X": np.zeros(2, F32)}, {"y": np.full(2, 4.0, F32)})


def test_loop_with_scan_output_and_nested_if() -> None:
    X = oc.arg("X", F32, (2,))

    def body(i: oc.Var, c: oc.Var, v: oc.Var) -> list[oc.Var]:
        odd = op.Equal(op.Mod(i, np.array(2, np.int64)), np.array(1, np.int64))
        step = op.If(
            odd, then_branch=lambda: [op.Mul(v, 2.0)], else_branch=lambda: [op.Add(v, 1.0)]
        )[0]
        return [c, step, op.Identity(step)]

    final, history = op.Loop(np.array(3, np.int64), None, X, body=body)
    assert history.shape == (None, 2)
    model = oc.build([X], {"final": final, "history": history})
    # v: 0 -> +1 = 1 -> *2 = 2 -> +1 = 3
    verify(
        model,
        {"X": np.zeros(2, F32)},
        {"final": np.full(2, 3.0, F32), "history": np.array([[1, 1], [2, 2], [3, 3]], F32)},
    )


def test_scan_running_sum() -> None:
    X = oc.arg("X", F32, (4, 2))
    init = np.zeros(2, F32)
    total, partial = op.Scan(
        init, X, num_scan_inputs=1, body=lambda s, x: [op.Add(s, x), op.Add(s, x)]
    )
    assert partial.shape == (4, 2)
    model = oc.build([X], {"total": total, "partial": partial})
    x = np.arange(8, dtype=F32).reshape(4, 2)
    verify(model, {"X": x}, {"total": x.sum(0), "partial": np.cumsum(x, 0)})


def test_sequence_map() -> None:
    S = oc.arg("S", oc.Sequence(oc.Tensor(F32, (None,))))
    (lengths,) = op.SequenceMap(S, body=lambda t: [op.Shape(t)])
    model = oc.build([S], {"lengths": lengths})
    seq = [np.zeros(3, F32), np.zeros(5, F32)]
    out = verify(model, {"S": seq}, ort_check=False)
    assert [a.tolist() for a in out["lengths"]] == [[3], [5]]


def test_function_with_attribute() -> None:
    @oc.function("my.domain", "ScaledTanh")
    def scaled_tanh(x: oc.Var, *, alpha: float = 2.0) -> oc.Var:
        return op.Mul(op.Tanh(x), op.CastLike(op.Constant(value_float=alpha), x))

    X = oc.arg("X", F32, (3,))
    y = scaled_tanh(X, alpha=0.5)
    assert y.type == oc.Tensor(F32, (3,))
    model = oc.build([X], {"y": y})
    proto = onnx_model(model)
    assert [f.name for f in proto.functions] == ["ScaledTanh"]
    assert {(o.domain, o.version) for o in proto.opset_import} >= {("my.domain", 1)}
    x = np.array([-1, 0, 2], F32)
    verify(model, {"X": x}, {"y": np.tanh(x) * F32(0.5)})


def test_custom_op_with_inference_rule() -> None:
    X = oc.arg("X", F32, (2, 3))
    (y,) = oc.custom_op(
        "Gelu", X, domain="com.microsoft", outputs=1, infer=lambda types, attrs: [types[0]]
    )
    assert y.type == X.type
    model = onnx_model(oc.build([X], {"y": y}))
    assert model.graph.node[0].domain == "com.microsoft"
    assert ("com.microsoft", 1) in {(o.domain, o.version) for o in model.opset_import}


def _onnx_affine() -> onnx.ModelProto:
    w = numpy_helper.from_array(np.array([[2.0, 0.0], [0.0, 3.0]], F32), "W")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["h"]), helper.make_node("Relu", ["h"], ["out"])],
        "affine",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("out", onnx.TensorProto.FLOAT, ["N", 2])],
        [w],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_inline_an_onnx_model_twice() -> None:
    X = oc.arg("X", F32, ("N", 2))
    first = oc.inline(_onnx_affine(), x=X)["out"]
    second = oc.inline(_onnx_affine(), x=first)["out"]
    model = oc.build([X], {"y": second}, opset=17)
    x = np.array([[1, -1], [2, 2]], F32)
    W = np.diag([2.0, 3.0]).astype(F32)
    verify(model, {"X": x}, {"y": np.maximum(np.maximum(x @ W, 0) @ W, 0)})


def test_operator_overloading() -> None:
    X = oc.arg("X", F32, (4, 3))
    W = np.ones((3, 2), F32)
    y = -(X * 2.0 + 1.0) @ W
    z = (X**2.0)[1:3, ::2]
    first = X[0]
    mask = X < 0.5
    model = oc.build([X], {"y": y, "z": z, "first": first, "mask": mask})
    x = np.arange(12, dtype=F32).reshape(4, 3) / 4
    verify(
        model,
        {"X": x},
        {"y": -(x * 2 + 1) @ W, "z": (x**2)[1:3, ::2], "first": x[0], "mask": x < 0.5},
    )


def test_var_has_no_truth_value() -> None:
    X = oc.arg("X", F32, (2,))
    with pytest.raises(oc.BuildError, match="no truth value"):
        bool(X)
