"""The fifth pass on ``oc.infer_shapes`` (issue 17): operator versions resolved once per
process, answers that read known values kept in their key's cell, int64 shape constants
decoded without ``to_array``'s general path, and the writer asking once per attribute list
whether it holds a graph. Each one answers what the plain path (or the general decoder)
answers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import OnnxcraftError
from onnxcraft.infer import engine, rules
from onnxcraft.infer import graph as walk
from onnxcraft.infer.graph import GraphInference
from onnxcraft.proto import ModelProto
from onnxcraft.proto.inference import _int64_array, _ReadTensor, read_for_inference
from onnxcraft.proto.onnx_pb2 import TensorProto
from onnxcraft.proto.tensor import to_array
from tests.infer.test_direct import _empty_model
from tests.infer.test_fast_paths import assert_same

INT64 = 7


# -- int64 constants ------------------------------------------------------------------------------


def _decoded(tensor: TensorProto) -> tuple[str, Any]:
    """What decoding gives: ("value", array) or ("error", the error's class)."""
    try:
        return "value", _ReadTensor(tensor).array()
    except OnnxcraftError as exc:
        return "error", type(exc)


def _reference(tensor: TensorProto) -> tuple[str, Any]:
    try:
        return "value", to_array(tensor)
    except OnnxcraftError as exc:
        return "error", type(exc)


@settings(max_examples=200, deadline=None)
@given(
    dims=st.lists(st.integers(-1, 4), max_size=3),
    data_type=st.sampled_from([INT64, INT64, INT64, 1, 6, 0, 99]),
    extra=st.integers(-9, 9),
    raw=st.booleans(),
    external=st.booleans(),
    segment=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_int64_constants_decode_as_to_array(
    dims: list[int],
    data_type: int,
    extra: int,
    raw: bool,
    external: bool,
    segment: bool,
    seed: int,
) -> None:
    tensor = TensorProto(name="c", data_type=data_type, dims=dims)
    count = int(np.prod(dims)) if min(dims, default=0) >= 0 else 0
    values = np.random.default_rng(seed).integers(-(2**62), 2**62, max(count, 0), np.int64)
    if raw:
        data = values.astype("<i8").tobytes()
        tensor.raw_data = data[: max(len(data) + extra, 0)] if extra < 0 else data + b"\0" * extra
    else:
        tensor.int64_data.extend(values.tolist())
    if external:
        tensor.data_location = TensorProto.EXTERNAL
        tensor.external_data.add(key="location", value="weights.bin")
    if segment:
        tensor.segment.begin = 0
        tensor.segment.end = 1
    got, expected = _decoded(tensor), _reference(tensor)
    assert got[0] == expected[0]
    if got[0] == "error":
        assert got[1] == expected[1]
        return
    a, b = got[1], expected[1]
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()
    assert a.flags.writeable and a.flags.c_contiguous


def test_shape_constants_take_the_int64_path() -> None:
    tensor = TensorProto(name="c", data_type=INT64, dims=[3])
    tensor.raw_data = np.asarray([1, -1, 7], "<i8").tobytes()
    found = _int64_array(tensor, ElementType.INT64, (3,))
    assert found is not None and found.tolist() == [1, -1, 7]
    tensor.raw_data = tensor.raw_data[:-1]  # a length that does not fit: to_array says so
    assert _int64_array(tensor, ElementType.INT64, (3,)) is None


# -- Reshapes of shared shape constants ------------------------------------------------------------


def _reshapes(shapes: list[tuple[int, ...]], uses: list[int], declared: list[int]) -> bytes:
    """x of 24 floats reshaped by shape constants chosen by ``uses`` (shared between nodes),
    each node's output declared with the shape of constant ``declared[i]`` where given."""
    model = _empty_model()
    graph = model.graph
    info = graph.input.add(name="x")
    info.type.tensor_type.elem_type = 1
    info.type.tensor_type.shape.dim.add(dim_value=24)
    for i, shape in enumerate(shapes):
        tensor = graph.initializer.add(name=f"s{i}", data_type=INT64, dims=[len(shape)])
        tensor.raw_data = np.asarray(shape, "<i8").tobytes()
    for j, use in enumerate(uses):
        graph.node.add(op_type="Reshape", input=["x", f"s{use}"], output=[f"y{j}"])
        if j < len(declared):
            out = graph.value_info.add(name=f"y{j}")
            out.type.tensor_type.elem_type = 1
            for d in shapes[declared[j]]:
                out.type.tensor_type.shape.dim.add(dim_value=max(d, 0))
    graph.output.add(name=f"y{len(uses) - 1}")
    return model.SerializeToString()


_SHAPES = st.lists(
    st.sampled_from([(24,), (2, 12), (4, -1), (2, 3, 4), (0, 6, 4), (5, -1), (-1, -1), (3, 0)]),
    min_size=1,
    max_size=4,
)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), shapes=_SHAPES)
def test_shared_shape_constants_answer_as_the_plain_path(
    data: st.DataObject, shapes: list[tuple[int, ...]]
) -> None:
    index = st.integers(0, len(shapes) - 1)
    uses = data.draw(st.lists(index, min_size=1, max_size=8))
    declared = data.draw(st.lists(index, max_size=len(uses)))
    assert_same(_reshapes(shapes, uses, declared))  # (strict and not)


def test_shared_shape_constants_are_remembered_by_their_values() -> None:
    data = _reshapes([(2, 12), (4, -1)], [0, 1, 0, 1, 0], [])
    model, _, typed = read_for_inference(ModelProto.FromString(data), values_up_to=64)
    runner = GraphInference({}, model.opset_imports, False)
    runner.graph(model.graph, {}, {}, model.opset_imports, added=[], typed_initializers=typed)
    assert runner.memo is not None
    (cell,) = runner.memo.values()  # one key: the constants differ by value only
    assert cell[0] is None and len(cell[1]) == 2
    assert [v.type for v in model.graph.outputs] == [oc.Tensor(np.float32, (2, 12))]


# -- operator versions resolved once per process --------------------------------------------------


def _relu_then_abs() -> bytes:
    model = _empty_model(13)
    graph = model.graph
    info = graph.input.add(name="x")
    info.type.tensor_type.elem_type = 1
    info.type.tensor_type.shape.dim.add(dim_value=3)
    graph.node.add(op_type="Relu", input=["x"], output=["r"])
    graph.node.add(op_type="Shrink", input=["r"], output=["y"])
    graph.output.add(name="y")
    return model.SerializeToString()


def test_resolved_operators_are_those_of_a_fresh_resolution() -> None:
    oc.infer_shapes(_relu_then_abs())
    for key in [("", "Relu", 13), ("", "Shrink", 13)]:
        kept = walk._OPERATORS[key]
        assert walk._resolve(*key) == kept
        assert kept[5] is rules.rule_for(kept[0])  # (as worked out with the rule in force)


def test_a_rule_replaced_later_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """Facts kept with one rule are worked out again once the rule in force is another (the
    testing harness replaces rules so): a pass-through no longer skips Relu's rule."""
    data = _relu_then_abs()
    oc.infer_shapes(data)
    relu = walk._OPERATORS[("", "Relu", 13)][0]
    original = engine.rule_for

    def rule_for(op: Any) -> Any:
        return (lambda ctx: [oc.Tensor(np.float32, (5,))]) if op is relu else original(op)

    monkeypatch.setattr(engine, "rule_for", rule_for)
    out = oc.infer_shapes(data)
    assert [d.dim_value for d in out.graph.output[0].type.tensor_type.shape.dim] == [5]


def test_a_rule_registered_later_is_not_taken_from_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An operator resolved (and kept for the process) before a user's rule for it is
    registered is resolved anew afterwards, and its answers are not remembered."""
    data = _relu_then_abs()
    oc.infer_shapes(data)
    assert ("", "Shrink", 13) in walk._OPERATORS

    def remembered() -> set[str]:
        model, _, typed = read_for_inference(ModelProto.FromString(data), values_up_to=64)
        runner = GraphInference({}, model.opset_imports, False)
        runner.graph(model.graph, {}, {}, model.opset_imports, added=[], typed_initializers=typed)
        return {op.op_type for op in runner._remembered}

    assert remembered() == {"Relu", "Shrink"}
    monkeypatch.setattr(rules, "_user_ruled", {("", "Shrink")})  # (as register_rule leaves it)
    assert remembered() == {"Relu"}
