"""Reductions with ``noop_with_empty_axes=1`` and no axes (an empty ``axes`` input or none).

Reducing over no axis still applies the operator's elementwise part: x*x for ReduceSumSquare,
|x| for ReduceL1, sqrt(x*x) for ReduceL2, log x for ReduceLogSum, log(exp x) for
ReduceLogSumExp, x itself for the others. That is what the function bodies of opset 18 say (a
ReduceSum over no axis between the elementwise nodes), and what onnx's reference evaluator and
onnxruntime compute; every operator version with the attribute is checked against both.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

import onnxcraft as oc
from onnxcraft import specs

REDUCTIONS = (
    "ReduceSum",
    "ReduceMean",
    "ReduceProd",
    "ReduceSumSquare",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceMax",
    "ReduceMin",
)
# The newest opset the installed onnxruntime (1.32) implements for these operators.
ONNXRUNTIME_OPSET = 22
VERSIONS = [
    (op, version)
    for op in REDUCTIONS
    for version in specs.versions(op)
    if any(a.name == "noop_with_empty_axes" for a in specs.get(op, opset=version).attributes)
]
X = {
    "float32": np.asarray([[0.5, -2.0, 3.0], [4.0, -0.25, 0.0]], dtype=np.float32),
    "float64": np.asarray([[1.5, 2.0, -3.0], [0.125, 7.0, -0.0]], dtype=np.float64),
}


def _model(op: str, opset: int, elem: int, *, axes_input: bool) -> onnx.ModelProto:
    inputs = [helper.make_tensor_value_info("x", elem, [2, 3])]
    if axes_input:
        inputs.append(helper.make_tensor_value_info("axes", onnx.TensorProto.INT64, [0]))
    node = helper.make_node(
        op, ["x", "axes"] if axes_input else ["x"], ["y"], noop_with_empty_axes=1
    )
    graph = helper.make_graph(
        [node], "noop", inputs, [helper.make_tensor_value_info("y", elem, [2, 3])]
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def test_every_version_with_the_attribute_is_covered() -> None:
    ops = {op for op, _ in VERSIONS}
    assert ops == set(REDUCTIONS)
    assert ("ReduceSum", 13) in VERSIONS and ("ReduceSumSquare", 18) in VERSIONS


@pytest.mark.parametrize("axes_input", [True, False], ids=["empty-axes", "no-axes"])
@pytest.mark.parametrize("dtype", list(X))
@pytest.mark.parametrize(("op", "version"), VERSIONS)
def test_noop_with_empty_axes_applies_the_elementwise_part(
    op: str, version: int, dtype: str, axes_input: bool
) -> None:
    x = X[dtype]
    elem = onnx.helper.np_dtype_to_tensor_dtype(x.dtype)
    model = _model(op, version, elem, axes_input=axes_input)
    feeds = {"x": x, "axes": np.zeros(0, dtype=np.int64)} if axes_input else {"x": x}
    ours = oc.evaluate(model, feeds)["y"]
    assert ours.shape == x.shape and ours.dtype == x.dtype
    with np.errstate(all="ignore"):
        expected = ReferenceEvaluator(model).run(None, feeds)[0]
    np.testing.assert_array_equal(ours, expected)
    if version <= ONNXRUNTIME_OPSET:
        options = ort.SessionOptions()
        options.log_severity_level = 4
        session = ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        rtol = float(np.finfo(x.dtype).eps) * 4  # log and sqrt, correctly rounded or nearly
        np.testing.assert_allclose(ours, session.run(None, feeds)[0], rtol=rtol, atol=0)
    # The inference rule agrees: the shape and type are the input's.
    inferred = oc.infer_shapes(model)
    assert [d.dim_value for d in inferred.graph.output[0].type.tensor_type.shape.dim] == [2, 3]
