"""Legacy broadcasting: the elementwise operators of opset < 7 with ``broadcast`` and ``axis``.

The standard's text (Add-1 .. Add-6 and the others): with ``broadcast=1`` B is stretched to A's
shape, B being either a single element (a scalar, or any shape of ones of rank at most A's) or
a tensor whose shape is a contiguous run of A's shape, starting at ``axis`` or, by default,
matched with A's trailing axes; with ``broadcast=0`` the shapes must be equal. The result has
A's shape. onnxruntime implements none of these versions and onnx's reference evaluator ignores
the attributes, so the oracle is numpy, with B reshaped here by hand as the text says; onnx's
reference is compared too where its numpy broadcasting gives the same (the trailing-axes cases).
Every operator version whose spec carries ``broadcast`` is driven, through the evaluator and
through shape inference, which must agree on the shape and refuse the same misfits.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import onnxcraft as oc
from onnxcraft import specs
from onnxcraft.errors import EvaluationError, InferenceError

# Every elementwise operator version with the legacy attributes (Gemm's broadcast is another
# rule: C into A*B, tested with Gemm).
VERSIONS = [
    (op, version)
    for op in ("Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Greater", "Less")
    for version in specs.versions(op)
    if any(a.name == "broadcast" for a in specs.get(op, opset=version).attributes)
]
LOGICAL = {"And", "Or", "Xor"}
COMPARISON = {"Equal", "Greater", "Less"}
NUMPY = {
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Div": np.divide,
    "Pow": np.power,
    "And": np.logical_and,
    "Or": np.logical_or,
    "Xor": np.logical_xor,
    "Equal": np.equal,
    "Greater": np.greater,
    "Less": np.less,
}
A_SHAPE = (2, 3, 4, 5)
# (B's shape, attributes, B's shape as numpy must see it to broadcast it as the text says).
FITS: list[tuple[tuple[int, ...], dict[str, int], tuple[int, ...]]] = [
    ((), {"broadcast": 1}, ()),
    ((1,), {"broadcast": 1}, ()),
    ((1, 1), {"broadcast": 1}, ()),
    ((1, 1, 1, 1), {"broadcast": 1, "axis": 2}, ()),
    ((5,), {"broadcast": 1}, (5,)),
    ((4, 5), {"broadcast": 1}, (4, 5)),
    ((3, 4), {"broadcast": 1, "axis": 1}, (3, 4, 1)),
    ((2,), {"broadcast": 1, "axis": 0}, (2, 1, 1, 1)),
    ((3,), {"broadcast": 1, "axis": -3}, (3, 1, 1)),
    ((2, 3, 4, 5), {"broadcast": 1}, (2, 3, 4, 5)),
    ((2, 3, 4, 5), {}, (2, 3, 4, 5)),
    ((2, 3, 4, 5), {"broadcast": 0}, (2, 3, 4, 5)),
]
MISFITS: list[tuple[tuple[int, ...], dict[str, int]]] = [
    ((5,), {}),  # broadcast=0 (the default): the shapes must be equal
    ((4, 5), {"broadcast": 0}),
    ((4,), {"broadcast": 1}),  # the trailing axis is 5
    ((3, 4), {"broadcast": 1, "axis": 2}),  # axes 2, 3 are (4, 5)
    ((4, 5), {"broadcast": 1, "axis": 3}),  # runs past A's last axis
    ((3,), {"broadcast": 1, "axis": 4}),  # axis out of range
    ((1, 1, 1, 1, 1), {"broadcast": 1}),  # one element, but of higher rank than A
    ((1, 5), {"broadcast": 1, "axis": 0}),  # neither one element nor a run of A's shape
]


def _types(op: str) -> tuple[int, int, type[Any]]:
    """(input element type, output element type, numpy dtype) of a case of ``op``."""
    if op in LOGICAL:
        return TensorProto.BOOL, TensorProto.BOOL, np.bool_
    if op in COMPARISON:
        return TensorProto.FLOAT, TensorProto.BOOL, np.float32
    return TensorProto.FLOAT, TensorProto.FLOAT, np.float32


def _model(op: str, version: int, b_shape: tuple[int, ...], attrs: dict[str, int]) -> Any:
    elem, out_elem, _ = _types(op)
    graph = helper.make_graph(
        [helper.make_node(op, ["A", "B"], ["C"], **attrs)],
        "legacy",
        [
            helper.make_tensor_value_info("A", elem, A_SHAPE),
            helper.make_tensor_value_info("B", elem, b_shape),
        ],
        [helper.make_tensor_value_info("C", out_elem, A_SHAPE)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)], ir_version=3)


def _feeds(op: str, b_shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    _, _, dtype = _types(op)
    if dtype is np.bool_:
        return {"A": rng.random(A_SHAPE) < 0.5, "B": np.asarray(rng.random(b_shape) < 0.5)}
    a = rng.integers(1, 4, A_SHAPE).astype(dtype)  # small integers: exact in every operator
    return {"A": a, "B": np.asarray(rng.integers(1, 4, b_shape)).astype(dtype)}


def _output_dims(model: Any) -> list[int]:
    return [d.dim_value for d in model.graph.output[0].type.tensor_type.shape.dim]


def test_every_legacy_version_is_driven() -> None:
    assert {(op, v) for op, v in VERSIONS} >= {("Add", 1), ("Add", 6), ("Pow", 1), ("Xor", 1)}
    assert len(VERSIONS) == 15


@pytest.mark.parametrize(("b_shape", "attrs", "as_numpy"), FITS)
@pytest.mark.parametrize(("op", "version"), VERSIONS)
def test_legacy_broadcast_follows_the_standard(
    op: str, version: int, b_shape: tuple[int, ...], attrs: dict[str, int], as_numpy: Any
) -> None:
    model = _model(op, version, b_shape, attrs)
    onnx.checker.check_model(model)
    feeds = _feeds(op, b_shape)
    expected = NUMPY[op](feeds["A"], feeds["B"].reshape(as_numpy))
    ours = oc.evaluate(model, feeds)["C"]
    assert ours.shape == A_SHAPE and ours.dtype == expected.dtype
    np.testing.assert_array_equal(ours, expected)
    # onnx's reference numpy-broadcasts (right for the trailing axes) and its Pow refuses the
    # broadcast attribute.
    if "axis" not in attrs and not (op == "Pow" and attrs):
        np.testing.assert_array_equal(ours, ReferenceEvaluator(model).run(None, feeds)[0])
    assert _output_dims(oc.infer_shapes(model, strict=True)) == list(A_SHAPE)


@pytest.mark.parametrize(("b_shape", "attrs"), MISFITS)
@pytest.mark.parametrize(("op", "version"), VERSIONS)
def test_legacy_broadcast_refuses_what_does_not_fit(
    op: str, version: int, b_shape: tuple[int, ...], attrs: dict[str, int]
) -> None:
    model = _model(op, version, b_shape, attrs)
    names_b = re.escape(f"B of shape {list(b_shape)}")
    with pytest.raises(EvaluationError, match=rf"^{op}: (.*{names_b}|axis=)"):
        oc.evaluate(model, _feeds(op, b_shape))
    with pytest.raises(InferenceError, match=rf"{op}: "):
        oc.infer_shapes(model, strict=True)


def test_symbolic_dims_may_fit() -> None:
    """Inference refuses only what is known not to fit: a named dim may equal anything."""
    graph = helper.make_graph(
        [helper.make_node("Add", ["A", "B"], ["C"], broadcast=1, axis=1)],
        "legacy",
        [
            helper.make_tensor_value_info("A", TensorProto.FLOAT, ["N", "C", 7]),
            helper.make_tensor_value_info("B", TensorProto.FLOAT, ["K"]),
        ],
        [helper.make_tensor_value_info("C", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)], ir_version=3)
    shape = oc.infer_shapes(model, strict=True).graph.output[0].type.tensor_type.shape
    assert [d.dim_param or d.dim_value for d in shape.dim] == ["N", "C", 7]
    result = oc.evaluate(
        model, {"A": np.ones((2, 3, 7), np.float32), "B": np.arange(3, dtype=np.float32)}
    )["C"]
    np.testing.assert_array_equal(result[:, :, 0], np.tile(np.arange(1, 4), (2, 1)))
