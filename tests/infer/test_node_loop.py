"""The walk's node loop (``GraphInference.nodes``) gives exactly what the plain walk gives.

The loop answers the commonest nodes itself (a type passed on, as Relu does; a direct answer,
for Conv, Concat, the pools and a classifier's head, the first node of each attribute list
included) and leaves every other case to ``_node``. These tests draw models that go through
each of its turns and through the cases it must leave alone: known input values (a node the
engine folds), optional inputs left out, outputs declared right, wrong, equal but another
object or without a shape, attributes the operator version lacks or of another type, a
local function named as an operator, strict walks. Each model is inferred through
``oc.infer_shapes`` and through the plain path (``tests/infer/test_fast_paths.py``): the same
bytes, the same warnings, or the same error. The zoo's models, typed or not, likewise.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.infer.graph import GraphInference, InferenceWarning
from onnxcraft.proto import ModelProto
from onnxcraft.proto.serde import model_from_proto
from tests.infer.test_fast_paths import assert_same

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import bench_infer
import zoo

FLOAT, INT64 = 1, 7


def _model(opset: int) -> ModelProto:
    model = ModelProto()
    model.ir_version = 10
    model.opset_import.add(domain="", version=opset)
    model.graph.name = "g"
    return model


def _typed(info: Any, shape: tuple[Any, ...] | None, elem: int = FLOAT) -> None:
    info.type.tensor_type.elem_type = elem
    if shape is None:
        return
    info.type.tensor_type.shape.SetInParent()
    for d in shape:
        dim = info.type.tensor_type.shape.dim.add()
        if isinstance(d, str):
            dim.dim_param = d
        elif d is not None:
            dim.dim_value = d


def _weight(graph: Any, name: str, dims: tuple[int, ...], *, small: bool = False) -> None:
    tensor = graph.initializer.add(name=name, data_type=FLOAT)
    tensor.dims.extend(dims)
    count = int(np.prod(dims))
    if small or count <= 64:
        tensor.float_data.extend([0.5] * count)
    else:  # (external and unwritten, as the benchmark's weights)
        tensor.data_location = 1
        tensor.external_data.add(key="location", value="weights.bin")


def _ints(node: Any, name: str, values: tuple[int, ...], kind: int = 7) -> None:
    attribute = node.attribute.add(name=name, type=kind)
    if kind == 7:
        attribute.ints.extend(values)
    else:
        attribute.i = values[0]


@st.composite
def _loop_models(draw: st.DrawFn) -> bytes:
    """Blocks of Conv, a passing activation, a pool and a Concat, alike or not, then maybe a
    classifier's head; each turn drawn to take the loop's path or to leave it."""
    model = _model(draw(st.sampled_from([13, 21])))
    graph = model.graph
    channels = draw(st.integers(1, 3))
    size = draw(st.integers(5, 9))
    batch = draw(st.sampled_from([1, 2, "N"]))
    _typed(graph.input.add(name="x"), (batch, channels, size, size))
    current, count = "x", 0

    def out() -> str:
        nonlocal count
        count += 1
        return f"v{count}"

    for block in range(draw(st.integers(1, 4))):
        kernel = draw(st.sampled_from([1, 1, 3]))
        width = draw(st.sampled_from([channels, 2 * channels, channels + 1]))
        _weight(graph, f"w{block}", (width, channels, kernel, kernel))
        inputs = [current, f"w{block}"]
        if draw(st.booleans()):
            _weight(graph, f"b{block}", (draw(st.sampled_from([width, width, width + 1])),))
            inputs.append(f"b{block}")
        elif draw(st.integers(0, 5)) == 0:
            inputs.append("")  # an optional input left out
        name = out()
        conv = graph.node.add(op_type="Conv", input=inputs, output=[name])
        if kernel == 3 and draw(st.booleans()):
            _ints(conv, "pads", (1, 1, 1, 1))
        turn = draw(st.integers(0, 9))
        if turn == 0:
            _ints(conv, "kernel_shape", (kernel, kernel, 1))  # of the wrong length
        elif turn == 1:
            _ints(conv, "group", (1,), kind=2)
        elif turn == 2:
            _ints(conv, "no_such_attribute", (1,), kind=2)
        elif turn == 3:
            _ints(conv, "strides", (2,), kind=2)  # INT given for INTS
        current, channels = name, width
        activation = draw(st.sampled_from(["Relu", "Sigmoid", "Abs", "Relu", None]))
        if activation is not None:
            source = current
            if draw(st.integers(0, 6)) == 0:  # a known value: the engine folds the node
                source = f"k{block}"
                _weight(graph, source, (channels,), small=True)
            name = out()
            node = graph.node.add(op_type=activation, input=[source], output=[name])
            if draw(st.integers(0, 8)) == 0:
                _ints(node, "alpha", (1,), kind=2)  # an attribute Relu lacks
            if source == current:
                current = name
        if draw(st.booleans()):
            name = out()
            pool = graph.node.add(op_type="MaxPool", input=[current], output=[name])
            _ints(pool, "kernel_shape", (2, 2))
            if draw(st.booleans()):
                _ints(pool, "strides", (2, 2))
            current = name
        if draw(st.booleans()):
            name = out()
            joined = [current] * draw(st.integers(1, 3))
            graph.node.add(op_type="Concat", input=joined, output=[name])
            graph.node[-1].attribute.add(name="axis", type=2, i=draw(st.sampled_from([1, 1, -3])))
            current, channels = name, channels * len(joined)
    if draw(st.booleans()):
        name = out()
        graph.node.add(op_type="GlobalAveragePool", input=[current], output=[name])
        current = name
        name = out()
        graph.node.add(op_type="Flatten", input=[current], output=[name])
        current = name
        name = out()
        graph.node.add(op_type="Softmax", input=[current], output=[name])
        current = name
    output = graph.output.add(name=current)
    declared = draw(st.sampled_from(["none", "shapeless", "wrong", "elem"]))
    if declared == "shapeless":
        _typed(output, None)
    elif declared == "wrong":
        _typed(output, (7, 7))
    elif declared == "elem":
        _typed(output, None, INT64)
    if draw(st.booleans()):  # a declared intermediate, right or wrong
        info = graph.value_info.add(name="v1")
        _typed(info, draw(st.sampled_from([None, (batch, 1), (batch, 1, 2, 2)])))
    return model.SerializeToString()


@settings(max_examples=200, deadline=None)
@given(data=_loop_models())
def test_drawn_models_answer_as_the_plain_path(data: bytes) -> None:
    assert_same(data)


@settings(max_examples=60, deadline=None)
@given(data=_loop_models())
def test_drawn_models_typed_answer_as_the_plain_path(data: bytes) -> None:
    """Inferred once, then again with every value declared (as a typed model comes)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InferenceWarning)
            typed = oc.infer_shapes(data).SerializeToString()
    except oc.errors.OnnxcraftError:
        return
    assert_same(typed)


@pytest.mark.parametrize("name", ["squeezenet", "inception", "shufflenet", "resnet50"])
@pytest.mark.parametrize("typed", [False, True])
def test_zoo_models_as_the_benchmark_gives_them(name: str, typed: bool) -> None:
    """The benchmark's forms: weights external, value_info and output shapes stripped, or
    every value typed."""
    assert_same(bench_infer.strip(zoo.MODELS[name](1), external=True, typed=typed))


def _relu_model(function_domain: str) -> bytes:
    """Relu on float[2, 3] in a model with a local function ``function_domain``.Relu that
    gives the input's shape instead."""
    model = _model(21)
    graph = model.graph
    _typed(graph.input.add(name="x"), (2, 3))
    graph.node.add(op_type="Relu", input=["x"], output=["y"])
    graph.node.add(op_type="Relu", input=["y"], output=["z"])
    graph.output.add(name="z")
    function = model.functions.add(name="Relu", domain=function_domain)
    function.input.append("a")
    function.output.append("b")
    function.node.add(op_type="Shape", input=["a"], output=["b"])
    function.opset_import.add(domain="", version=21)
    if function_domain:
        model.opset_import.add(domain=function_domain, version=1)
    return model.SerializeToString()


@pytest.mark.parametrize("function_domain", ["", "local"])
def test_a_local_function_named_as_an_operator(function_domain: str) -> None:
    """A local function of the default domain named Relu is what its nodes call: the loop
    never passes their input's type on."""
    data = _relu_model(function_domain)
    assert_same(data)
    out = oc.infer_shapes(data).graph.output[0].type.tensor_type
    if function_domain:
        assert out.elem_type == FLOAT and [d.dim_value for d in out.shape.dim] == [2, 3]
    else:
        assert out.elem_type == INT64 and [d.dim_value for d in out.shape.dim] == [1]


def test_the_first_node_of_each_kind_is_answered_in_the_loop() -> None:
    """SqueezeNet as the benchmark gives it: every node is answered by the loop (_node runs
    for none), the first of each kind included."""
    data = bench_infer.strip(zoo.MODELS["squeezenet"](1), external=True)
    reached: list[str] = []
    original = GraphInference._node

    def counted(self: GraphInference, node: Any, *args: Any) -> None:
        reached.append(node.op_type)
        original(self, node, *args)

    GraphInference._node = counted  # type: ignore[method-assign]
    try:
        oc.infer_shapes(data)
    finally:
        GraphInference._node = original  # type: ignore[method-assign]
    assert reached == []


def test_ir_models_are_left_to_the_node_step() -> None:
    """An IR model's dims are not bounded: the loop leaves its nodes to _node, which
    answers as the plain walk."""
    model = zoo.MODELS["squeezenet"](1)
    copy = oc.proto.ModelProto.FromString(model.SerializeToString())
    del copy.graph.value_info[:]
    remembered = oc.infer_shapes(model_from_proto(copy))
    plain = model_from_proto(copy)
    runner = GraphInference({}, plain.opset_imports, strict=False)
    runner.memo = None
    runner.graph(plain.graph, {}, {}, plain.opset_imports)
    assert [v.type for v in remembered.graph.value_info] == [v.type for v in plain.graph.value_info]
