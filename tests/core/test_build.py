"""Building models with the DSL: types, literals, naming, build options and errors."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v13, v21
from onnxcraft.opset.ai.onnx import v21 as op
from tests.core.oracle import onnx_model, verify

F32 = np.float32


def linreg() -> tuple[oc.Var, oc.Var, np.ndarray]:
    X = oc.arg("X", F32, ("N", 4))
    W = np.arange(12, dtype=F32).reshape(4, 3) / 10
    Y = op.Add(op.MatMul(X, W), 0.5)
    return X, Y, W


def test_types_are_inferred_while_building() -> None:
    _X, Y, _ = linreg()
    assert Y.dtype == np.dtype(F32)
    assert Y.shape == ("N", 3)
    assert Y.type == oc.Tensor(F32, ("N", 3))


def test_linear_model_runs_everywhere() -> None:
    X, Y, W = linreg()
    model = oc.build([X], {"Y": Y}, name="linreg")
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(F32)
    verify(model, {"X": x}, {"Y": x @ W + F32(0.5)})
    graph = onnx_model(model).graph
    assert [o.name for o in graph.output] == ["Y"]
    dims = graph.output[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "N" and dims[1].dim_value == 3


def test_build_is_byte_identical() -> None:
    def make() -> bytes:
        X, Y, _ = linreg()
        return oc.build([X], {"Y": op.Relu(Y)}).SerializeToString()

    assert make() == make()


def test_literal_takes_the_bound_element_type() -> None:
    x16 = oc.arg("x", np.float16, (3,))
    y = op.Add(x16, 0.5)
    assert y.dtype == np.dtype(np.float16)
    model = oc.build([x16], {"y": y})
    init = onnx_model(model).graph.initializer[0]
    assert init.data_type == onnx.TensorProto.FLOAT16
    verify(
        model, {"x": np.array([1, 2, 3], np.float16)}, {"y": np.array([1.5, 2.5, 3.5], np.float16)}
    )


def test_non_integral_literal_into_int_tensor_is_an_error() -> None:
    xi = oc.arg("x", np.int64, (3,))
    with pytest.raises(oc.OpInputError, match=r"Add: input 'B'.*int64.*non-integral"):
        op.Add(xi, 1.5)
    assert op.Add(xi, 2).dtype == np.dtype(np.int64)


def test_identical_arrays_are_stored_once() -> None:
    X = oc.arg("X", F32, (2,))
    c = np.array([1.0, 2.0], F32)
    y = op.Add(op.Mul(X, c), c.copy())
    model = onnx_model(oc.build([X], {"y": y}))
    assert len(model.graph.initializer) == 1


def test_const_makes_a_constant_node() -> None:
    X = oc.arg("X", F32, (2,))
    y = op.Add(X, oc.const(np.array([1.0, 2.0], F32)))
    model = oc.build([X], {"y": y})
    assert [n.op_type for n in onnx_model(model).graph.node] == ["Constant", "Add"]
    verify(model, {"X": np.zeros(2, F32)}, {"y": np.array([1.0, 2.0], F32)})


def test_mismatched_element_types_name_operator_and_inputs() -> None:
    a = oc.arg("a", F32, (2,))
    b = oc.arg("b", np.int64, (2,))
    with pytest.raises(oc.OpInputError) as info:
        op.Add(a, b)
    message = str(info.value)
    assert (
        "Add" in message
        and "'B'" in message
        and "tensor(int64)" in message
        and "tensor(float)" in message
    )


def test_broadcast_clash_is_an_inference_error() -> None:
    a = oc.arg("a", F32, (2, 3))
    b = oc.arg("b", F32, (4,))
    with pytest.raises(oc.InferenceError, match="Add: cannot broadcast"):
        op.Add(a, b)


def test_matmul_clash_names_the_dimensions() -> None:
    a = oc.arg("a", F32, ("N", 3))
    with pytest.raises(
        oc.InferenceError,
        match=r"MatMul: inner dimensions differ: A\[\.\.\., 3\] vs B\[4, \.\.\.\]",
    ):
        op.MatMul(a, np.ones((4, 2), F32))


def test_attribute_errors() -> None:
    x = oc.arg("x", F32, (2,))
    with pytest.raises(oc.OpAttributeError, match="Cast: missing required attribute 'to'"):
        op.Cast(x)
    with pytest.raises(oc.OpAttributeError, match="Softmax: attribute 'axis' expects an int"):
        op.Softmax(x, axis="last")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Relu"):
        op.Relu(x, x)  # type: ignore[call-arg]  # the generated signature refuses it
    with pytest.raises(oc.OpInputError, match="Relu: missing required input"):
        op.Relu(None)  # type: ignore[arg-type]


def test_dtype_attribute_takes_numpy_dtypes() -> None:
    x = oc.arg("x", F32, (2,))
    y = op.Cast(x, to=np.int32)
    assert y.dtype == np.dtype(np.int32)
    verify(
        oc.build([x], {"y": y}),
        {"x": np.array([1.7, -2.2], F32)},
        {"y": np.array([1, -2], np.int32)},
    )


def test_names_are_unique_readable_identifiers() -> None:
    X, Y, _ = linreg()
    hidden = op.Relu(Y).named("hidden")
    model = onnx_model(oc.build([X], {"out": op.Neg(hidden)}, node_names=True))
    names = [o for n in model.graph.node for o in n.output] + [n.name for n in model.graph.node]
    assert "hidden" in names
    assert len(set(names)) == len(names)
    import re

    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) for n in names)


def test_default_names_are_short_and_nodes_unnamed() -> None:
    """Values are named after their operator and constants c0, c1 ...; nodes get no name
    unless asked for, as in a hand-written onnx.helper model."""
    x = oc.arg("x", F32, (3,))
    top = op.TopK(op.Mul(op.Add(x, np.float32(1)), np.ones(3, F32)), np.array([2]), axis=0)
    model = oc.build_ir([x], {"y": op.Add(top.Values, np.float32(2))})
    assert [n.name for n in model.graph.nodes] == ["", "", "", ""]
    assert [n.outputs for n in model.graph.nodes] == [
        ["add0"],
        ["mul0"],
        ["topk_values0", "topk_indices0"],
        ["y"],
    ]
    assert [t.name for t in model.graph.initializers] == ["c0", "c1", "c2", "c3"]
    named = oc.build_ir([x], {"y": op.Neg(x)}, node_names=True)
    assert [n.name for n in named.graph.nodes] == ["Neg0"]
    with pytest.raises(oc.ArgumentError, match="node_names must be a bool"):
        oc.build([x], {"y": op.Neg(x)}, node_names="yes")  # type: ignore[arg-type]


def test_name_clash_is_an_error() -> None:
    X = oc.arg("X", F32, (2,))
    a = op.Relu(X).named("same")
    b = op.Neg(X).named("same")
    with pytest.raises(oc.BuildError, match="'same' is given to two different values"):
        oc.build([X], {"y": op.Add(a, b)})


def test_output_depending_on_unlisted_input_is_an_error() -> None:
    X = oc.arg("X", F32, (2,))
    Z = oc.arg("Z", F32, (2,))
    with pytest.raises(oc.BuildError, match="input 'Z', which is not listed in inputs"):
        oc.build([X], {"y": op.Add(X, Z)})


def test_only_reachable_nodes_are_kept_and_sorted() -> None:
    X = oc.arg("X", F32, (2,))
    op.Exp(X)  # dead code
    y = op.Neg(op.Relu(X))
    model = onnx_model(oc.build([X], {"y": y}, value_info=True))
    assert [n.op_type for n in model.graph.node] == ["Relu", "Neg"]
    assert [v.name for v in model.graph.value_info] == [model.graph.node[0].output[0]]


def test_intermediate_types_are_declared_on_request_only() -> None:
    """Without value_info=True the file holds what onnx.helper's would: no value_info."""
    X = oc.arg("X", F32, ("N", 2))
    y = op.Neg(op.Relu(X))
    plain = onnx_model(oc.build([X], {"y": y}))
    declared = onnx_model(oc.build([X], {"y": y}, value_info=True))
    assert not plain.graph.value_info
    assert len(plain.SerializeToString()) < len(declared.SerializeToString())
    inferred = oc.infer_shapes(plain)
    assert [str(v.type) for v in inferred.graph.value_info] == [
        str(v.type) for v in declared.graph.value_info
    ]
    with pytest.raises(oc.ArgumentError, match="value_info must be a bool"):
        oc.build([X], {"y": y}, value_info="yes")  # type: ignore[arg-type]


def test_opset_and_ir_version_are_the_lowest_that_work() -> None:
    X = oc.arg("X", F32, (2,))
    model = onnx_model(oc.build([X], {"y": v21.Relu(X)}))
    assert [(o.domain, o.version) for o in model.opset_import] == [("", 21)]
    assert model.ir_version == 10
    model = onnx_model(oc.build([X], {"y": v13.Relu(X)}))
    assert [(o.domain, o.version) for o in model.opset_import] == [("", 13)]
    assert model.ir_version == 7
    assert onnx_model(oc.build([X], {"y": v13.Relu(X)}, ir_version=9)).ir_version == 9


def test_build_options_are_written() -> None:
    X = oc.arg("X", F32, (2,))
    model = onnx_model(
        oc.build(
            [X],
            {"y": op.Relu(X)},
            name="g",
            doc_string="doc",
            metadata={"author": "me"},
            model_version=3,
            domain="ai.example",
        )
    )
    assert model.graph.name == "g" and model.doc_string == "doc" and model.model_version == 3
    assert model.domain == "ai.example" and model.producer_name == "onnxcraft"
    assert {p.key: p.value for p in model.metadata_props} == {"author": "me"}


def test_ops_of_different_versions_in_one_model_are_an_error() -> None:
    X = oc.arg("X", F32, (2, 2))
    old = v13.Split(X, outputs_count=2)[0]  # Split-13
    new = v21.Cast(X, to=np.float64)  # Cast-21 forces opset 21, where Split is version 18
    with pytest.raises(oc.BuildError, match=r"Split.*version 13.*opset 21.*version 18"):
        oc.build([X], {"a": old, "b": new})


def test_output_that_is_an_input_goes_through_identity() -> None:
    X = oc.arg("X", F32, (2,))
    model = oc.build([X], {"copy": X, "y": op.Relu(X)})
    verify(model, {"X": np.array([-1, 1], F32)}, {"copy": np.array([-1, 1], F32)})
