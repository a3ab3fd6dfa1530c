"""The inference reader types the main graph's initializers in one pass (issue 17); whatever
it is given, ``oc.infer_shapes`` answers what the plain path answers (the same bytes, the same
warnings in the same order, or the same error). Also: nodes of many inputs, inferred every
time rather than remembered, answer alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.infer.graph import GraphInference
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.proto import ModelProto
from onnxcraft.proto.inference import read_for_inference
from onnxcraft.proto.serde import model_from_proto
from tests.infer.test_fast_paths import assert_same

FLOAT, INT64, UNDEFINED = 1, 7, 0


def _model(initializers: list[tuple[str, int, tuple[int, ...]]], inputs: tuple[str, ...]) -> bytes:
    """Add(x, w) for each initializer w (named, typed and shaped as given), with ``inputs``
    also listed as graph inputs of type float[2, 3]; small data is written, large data is
    external (unwritten), as the benchmark's models are."""
    model = ModelProto()
    model.ir_version = 10
    model.opset_import.add(domain="", version=21)
    graph = model.graph
    graph.name = "g"
    for name in ("x", *inputs):
        info = graph.input.add(name=name)
        info.type.tensor_type.elem_type = FLOAT
        for d in (2, 3):
            info.type.tensor_type.shape.dim.add(dim_value=d)
    for i, (name, data_type, dims) in enumerate(initializers):
        tensor = graph.initializer.add(name=name, data_type=data_type)
        tensor.dims.extend(dims)
        count = int(np.prod(dims)) if min(dims, default=0) >= 0 else 0
        if data_type == FLOAT and 0 < count <= 64:
            tensor.float_data.extend([1.0] * count)
        else:
            tensor.data_location = 1  # EXTERNAL
            tensor.external_data.add(key="location", value="weights.bin")
        graph.node.add(op_type="Add", input=["x", name], output=[f"y{i}"])
    graph.output.add(name=f"y{len(initializers) - 1}" if initializers else "x")
    return model.SerializeToString()


def _typed(data: bytes) -> bool:
    """Whether the reader typed the initializers itself (else the walk judges each)."""
    return read_for_inference(ModelProto.FromString(data), values_up_to=64).typed is not None


def test_valid_initializers_are_typed_by_the_reader() -> None:
    data = _model([("w", FLOAT, (3,)), ("v", FLOAT, (2, 3)), ("u", FLOAT, (20, 2, 3))], ())
    assert _typed(data)
    assert_same(data)
    inferred = model_from_proto(oc.infer_shapes(data))
    types = {v.name: v.type for v in [*inferred.graph.value_info, *inferred.graph.outputs]}
    assert types["y0"] == oc.Tensor(np.float32, (2, 3))
    assert types["y2"] == oc.Tensor(np.float32, (20, 2, 3))


def test_weights_share_one_type_object() -> None:
    data = _model([(f"w{i}", FLOAT, (64, 3)) for i in range(3)], ())
    typed = read_for_inference(ModelProto.FromString(data), values_up_to=64).typed
    assert typed is not None
    kinds = {id(t) for t in typed[0].values()}
    assert len(kinds) == 1
    assert typed[1] == {}  # 192 elements each: no data kept


def test_small_initializers_keep_their_tensor() -> None:
    data = _model([("w", FLOAT, (3,)), ("big", FLOAT, (65,))], ())
    typed = read_for_inference(ModelProto.FromString(data), values_up_to=64).typed
    assert typed is not None
    assert list(typed[1]) == ["w"]
    tensor = typed[1]["w"]
    assert (tensor.name, tensor.dims) == ("w", (3,))
    np.testing.assert_array_equal(tensor.array(), np.ones(3, np.float32))


def test_repeated_names_are_judged_by_the_walk() -> None:
    data = _model([("w", FLOAT, (3,)), ("w", FLOAT, (2, 3))], ())
    assert not _typed(data)
    assert_same(data)


def test_invalid_element_types_and_dims_are_judged_by_the_walk() -> None:
    for initializers in (
        [("w", UNDEFINED, (3,))],
        [("w", 999, (3,))],
        [("w", FLOAT, (-1, 3))],
        [("ok", FLOAT, (3,)), ("w", FLOAT, (3, -2))],
    ):
        data = _model(initializers, ())
        assert not _typed(data)
        assert_same(data)


def test_initializers_listed_as_inputs_are_refined_as_before() -> None:
    # (IR version 3 models list their initializers as graph inputs: the two types merge, and
    # a contradiction warns, or raises with strict=True)
    for dims in ((2, 3), (3,), (4, 5)):
        data = _model([("w", FLOAT, dims), ("v", FLOAT, (3,))], ("w",))
        assert _typed(data)
        assert_same(data)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c", "d"]),
            st.sampled_from([FLOAT, INT64, UNDEFINED, 40]),
            st.lists(st.integers(-1, 5), max_size=3).map(tuple),
        ),
        max_size=5,
    ),
    st.lists(st.sampled_from(["a", "b", "e"]), max_size=2, unique=True).map(tuple),
)
def test_drawn_initializers_answer_as_the_plain_path(
    initializers: list[tuple[str, int, tuple[int, ...]]], inputs: tuple[str, ...]
) -> None:
    assert_same(_model(initializers, inputs))


def _wide_concats(count: int) -> Any:
    x = oc.arg("x", np.float32, ("N", 2, 4))
    parts = [op.Mul(x, x) for _ in range(count)]
    first = op.Concat(*parts, axis=1)
    second = op.Concat(*parts, axis=1)  # alike: its answer could have been remembered
    return oc.build([x], {"y": op.Add(first, second)})


def test_nodes_of_many_inputs_are_inferred_every_time() -> None:
    model = _wide_concats(10)
    copy = ModelProto.FromString(model.SerializeToString())
    del copy.graph.value_info[:]
    assert_same(copy.SerializeToString())
    plain = model_from_proto(copy)
    calls: list[str] = []
    runner = GraphInference({}, plain.opset_imports, strict=False)
    original = runner._infer_node

    def counted(node: Any, *args: Any) -> Any:
        calls.append(node.op_type)
        return original(node, *args)

    runner._infer_node = counted  # type: ignore[method-assign]
    runner.graph(plain.graph, {}, {}, plain.opset_imports)
    assert calls.count("Concat") == 2  # both inferred
    assert calls.count("Mul") == 1  # alike nodes of two inputs: remembered
    assert plain.graph.outputs[0].type == oc.Tensor(np.float32, ("N", 20, 4))


def test_nodes_of_few_inputs_are_still_remembered() -> None:
    plain = model_from_proto(_wide_concats(8))
    calls: list[str] = []
    runner = GraphInference({}, plain.opset_imports, strict=False)
    original = runner._infer_node

    def counted(node: Any, *args: Any) -> Any:
        calls.append(node.op_type)
        return original(node, *args)

    runner._infer_node = counted  # type: ignore[method-assign]
    runner.graph(plain.graph, {}, {}, plain.opset_imports)
    assert calls.count("Concat") == 1
    assert plain.graph.outputs[0].type == oc.Tensor(np.float32, ("N", 16, 4))


def test_nodes_giving_their_input_type_answer_as_their_rule() -> None:
    """Relu, Abs ... of one input of unknown value are answered without their rule; a known
    value (folded), a wrong count of inputs or outputs, an attribute or an omitted input
    still go through it (the plain path runs the rule for every node)."""
    cases = [
        "y = Relu(x)",
        "y = Abs(Neg(Sigmoid(x)))",
        "y = Relu(c)",  # a known value: folded by the kernel
        "y = Relu(x, x)",  # too many inputs: an error at the node
        "y, z = Relu(x)",  # too many outputs
        "y = Relu <alpha: float = 0.5> (x)",  # an attribute Relu does not have
        'y = Relu("")',  # an omitted input
        "y = Clip(x)",  # of one to three inputs
        "y = Clip(x, lo)",
    ]
    for line in cases:
        text = f"""
<ir_version: 10, opset_import: ["" : 21]>
g (float[N, 3] x) => (float y) <float[3] c = {{1.0, -2.0, 3.0}}, float lo = {{0.0}}> {{
  {line}
}}"""
        try:
            model = oc.parse(text)
        except oc.OnnxcraftError:  # (a line the parser refuses tells nothing here)
            continue
        data = model.SerializeToString()
        assert_same(data)
