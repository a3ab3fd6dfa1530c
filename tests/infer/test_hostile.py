"""Shape inference on corrupted and hostile models (issue 16).

Whatever a model holds, ``oc.infer_shapes`` fails only with onnxcraft's errors: an
InferenceError in strict mode, an InferenceWarning naming the node otherwise. A fuzz test
mutates node-test models (tests/infer/_mutations.py); ONNXCRAFT_INFER_FUZZ_EXAMPLES=20000 runs
it longer. Hostile shapes cost no memory proportional to what they claim, dims past int64 are
errors at their node, and invalid operator uses are refused; where onnx's C++ inference
(with data propagation) finds a static shape, so does onnxcraft.
"""

from __future__ import annotations

import os
import time
import tracemalloc
import warnings
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh
from onnx import shape_inference

import onnxcraft as oc
from onnxcraft.errors import InferenceError, OnnxcraftError
from onnxcraft.infer.model import InferenceWarning
from onnxcraft.proto.serde import model_from_proto
from onnxcraft.types import Sequence, Tensor
from tests.infer._mutations import infer_both_ways, mutate
from tests.node_cases import case_names

FUZZ_EXAMPLES = int(os.environ.get("ONNXCRAFT_INFER_FUZZ_EXAMPLES", "150"))


# -- the fuzz test --------------------------------------------------------------------------------


@settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    derandomize="ONNXCRAFT_INFER_FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(case=st.sampled_from(case_names()), seed=st.integers(0, 2**32 - 1))
def test_mutated_models_fail_only_with_onnxcraft_errors(case: str, seed: int) -> None:
    data = mutate(case, seed)
    if data is not None:
        infer_both_ways(data)  # anything but an OnnxcraftError propagates and fails


# -- helpers --------------------------------------------------------------------------------------


def _model(
    nodes: list[Any],
    inputs: list[Any] = (),  # type: ignore[assignment]
    initializers: list[Any] = (),  # type: ignore[assignment]
    outputs: list[Any] | None = None,
    opset: int = 21,
    functions: list[Any] = (),  # type: ignore[assignment]
) -> onnx.ModelProto:
    outs = outputs if outputs is not None else [h.make_tensor_value_info("y", 0, None)]
    graph = h.make_graph(nodes, "g", list(inputs), outs, list(initializers))
    opsets = [h.make_opsetid("", opset), h.make_opsetid("local", 1)]
    return h.make_model(graph, opset_imports=opsets, functions=list(functions))


def _x(name: str, shape: list[Any] | None, elem: int = T.FLOAT) -> Any:
    return h.make_tensor_value_info(name, elem, shape)


def _i64(name: str, value: Any) -> Any:
    return nh.from_array(np.array(value, np.int64), name)


def _output_type(model: Any, name: str = "y") -> Any:
    graph = model_from_proto(oc.infer_shapes(model, strict=True)).graph
    return next(o.type for o in graph.outputs if o.name == name)


def _refused(model: Any, *words: str) -> None:
    """Strict inference raises an InferenceError saying ``words``; non-strict warns."""
    with pytest.raises(InferenceError) as raised:
        oc.infer_shapes(model, strict=True)
    for word in words:
        assert word in str(raised.value), str(raised.value)
    with pytest.warns(InferenceWarning):
        oc.infer_shapes(model)


# -- corrupted models -----------------------------------------------------------------------------


def test_attribute_of_the_wrong_type_is_an_inference_error() -> None:
    node = h.make_node("Gather", ["x", "i"], ["y"])
    node.attribute.append(h.make_attribute("axis", [0, 1]))  # INTS where INT is declared
    model = _model([node], [_x("x", [3, 4])], [_i64("i", [0])])
    _refused(model, "Gather", "'axis'", "INT", "INTS")


def test_an_attribute_the_operator_version_lacks_is_an_inference_error() -> None:
    node = h.make_node("Relu", ["x"], ["y"], alpha=0.5)
    _refused(_model([node], [_x("x", [3])]), "Relu-14 has no attribute 'alpha'")


@pytest.mark.parametrize(
    "op, attribute, extra_inputs",
    [("BitCast", "to", []), ("EyeLike", "dtype", []), ("SequenceEmpty", "dtype", None)],
)
def test_an_element_type_attribute_out_of_range_is_refused(
    op: str, attribute: str, extra_inputs: list[Any] | None
) -> None:
    inputs = [] if extra_inputs is None else ["x"]
    node = h.make_node(op, inputs, ["y"], **{attribute: -(2**63)})
    outputs = _seq_out() if extra_inputs is None else None
    model = _model([node], [_x("x", [2, 2])], outputs=outputs, opset=26)
    _refused(model, op, f"attribute {attribute!r} must name an ONNX element type")


def test_a_node_with_too_few_or_too_many_inputs_or_outputs_is_refused() -> None:
    seq = h.make_node("SequenceInsert", ["s"], ["y"])
    model = _model([seq], [h.make_tensor_sequence_value_info("s", T.FLOAT, None)])
    _refused(model, "SequenceInsert-11 takes 2 to 3 inputs, the node gives 1")
    relu = h.make_node("Relu", ["x", "x"], ["y"])
    _refused(_model([relu], [_x("x", [2])]), "Relu-14 takes 1 to 1 inputs, the node gives 2")
    outs = [h.make_tensor_value_info(n, 0, None) for n in ("y", "z")]
    relu = h.make_node("Relu", ["x"], ["y", "z"])
    _refused(_model([relu], [_x("x", [2])], outputs=outs), "Relu-14 has 1 outputs")


def test_concat_refuses_inputs_of_different_element_types() -> None:
    node = h.make_node("Concat", ["a", "b"], ["y"], axis=0)
    model = _model([node], [_x("a", [2], T.INT64), _x("b", [2], T.FLOAT)])
    _refused(model, "Concat", "one element type, got float, int64")


def test_top_k_1_without_k_is_refused() -> None:
    node = h.make_node("TopK", ["x"], ["v", "i"])
    outs = [h.make_tensor_value_info(n, 0, None) for n in ("v", "i")]
    _refused(_model([node], [_x("x", [3, 4])], outputs=outs, opset=1), "'k' is required")


def test_a_rule_tripping_over_corrupt_input_fails_at_its_node() -> None:
    # A complex tensor whose float_data holds an odd number of parts cannot be decoded.
    bad = onnx.TensorProto(name="c", data_type=T.COMPLEX64, dims=[1], float_data=[1.0, 2.0, 3.0])
    model = _model([h.make_node("Shape", ["c"], ["s"]), h.make_node("Identity", ["c"], ["y"])])
    model.graph.initializer.append(bad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InferenceWarning)
        oc.infer_shapes(model)  # the value is not needed: nothing fails
    node = h.make_node("Range", ["c", "c", "c"], ["y"])
    _refused(_model([node], initializers=[bad]), "Range", "3 parts for shape [1]")


def test_names_that_are_not_utf8_are_an_onnxcraft_error() -> None:
    model = _model([h.make_node("Relu", ["x"], ["yy"]), h.make_node("Relu", ["yy"], ["y"])])
    model.graph.input.append(_x("x", [2]))
    data = model.SerializeToString().replace(b"\x02yy", b"\x02\xffy")
    for strict in (True, False):
        with pytest.raises(OnnxcraftError, match="UTF-8"):
            oc.infer_shapes(data, strict=strict)


def _local(name: str, body: list[Any], outputs: list[str]) -> Any:
    return h.make_function("local", name, ["a"], outputs, body, [h.make_opsetid("", 21)])


def test_a_recursive_local_function_is_reported_not_a_recursion_error() -> None:
    f = _local("F", [h.make_node("G", ["a"], ["b"], domain="local")], ["b"])
    g = _local("G", [h.make_node("F", ["a"], ["b"], domain="local")], ["b"])
    model = _model(
        [h.make_node("F", ["x"], ["y"], domain="local")], [_x("x", [2])], functions=[f, g]
    )
    _refused(model, "local.F calls itself", "local.F -> local.G -> local.F")


def test_a_call_asking_for_more_outputs_than_the_function_has_is_refused() -> None:
    f = _local("F", [h.make_node("Relu", ["a"], ["b"])], ["b"])
    call = h.make_node("F", ["x"], ["y", "z"], domain="local")
    model = _model([call], [_x("x", [2])], functions=[f])
    _refused(model, "local.F has 1 outputs, the call asks for 2")


def test_strict_inference_refuses_an_untyped_graph_input() -> None:
    untyped = onnx.ValueInfoProto(name="u")
    model = _model([h.make_node("Concat", ["x", "u"], ["y"], axis=0)], [_x("x", [2, 3]), untyped])
    with pytest.raises(InferenceError, match="graph input 'u' has no type"):
        oc.infer_shapes(model, strict=True)


def test_strict_inference_refuses_an_undefined_input_name() -> None:
    model = _model([h.make_node("Concat", ["x", "nowhere"], ["y"], axis=0)], [_x("x", [2, 3])])
    with pytest.raises(InferenceError, match=r"Concat.*'nowhere' is not defined"):
        oc.infer_shapes(model, strict=True)


# -- hostile shapes -------------------------------------------------------------------------------


def test_a_claimed_huge_shape_length_allocates_nothing() -> None:
    # ConstantOfShape (and Expand, Tile, Reshape) whose shape input claims 2**31 entries.
    for node, extra in [
        (h.make_node("ConstantOfShape", ["s"], ["y"]), []),
        (h.make_node("Expand", ["x", "s"], ["y"]), [_x("x", [2])]),
        (h.make_node("Reshape", ["x", "s"], ["y"]), [_x("x", [2])]),
    ]:
        model = _model([node], [_x("s", [2**31], T.INT64), *extra])
        tracemalloc.start()
        start = time.perf_counter()
        out = _output_type(model)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert time.perf_counter() - start < 1.0
        assert peak < 10 << 20, f"{node.op_type}: {peak} bytes"
        assert isinstance(out, Tensor) and out.shape is None  # the rank is not materialized


@pytest.mark.parametrize(
    "nodes, inputs, initializers, op",
    [
        (
            [h.make_node("Concat", ["x", "x"], ["y"], axis=0)],
            [_x("x", [2**62 + 2**61, 1])],
            [],
            "Concat",
        ),
        (
            [h.make_node("Tile", ["x", "r"], ["y"])],
            [_x("x", [8, 1])],
            [_i64("r", [2**62, 1])],
            "Tile",
        ),
        (
            [h.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2**62, 1])],
            [_x("x", [1, 1, 8, 1]), _x("w", [1, 1, 1, 1])],
            [],
            "ConvTranspose",
        ),
        (
            [
                h.make_node("Shape", ["x"], ["s"]),
                h.make_node("Mul", ["s", "k"], ["t"]),
                h.make_node("ConstantOfShape", ["t"], ["y"]),
            ],
            [_x("x", [2**40])],
            [_i64("k", [2**40])],
            "Mul",
        ),
    ],
)
def test_a_dim_past_int64_is_an_error_at_its_node(
    nodes: list[Any], inputs: list[Any], initializers: list[Any], op: str
) -> None:
    # Not a ValueError when the proto is written, nor a wrapped-around int64 dim: a dim is
    # refused where the node's result type is made (naming the bound), a computed shape value
    # where it is computed.
    said = "beyond the int64 range" if op == "Mul" else "2**63-1, got"
    _refused(_model(nodes, inputs, initializers), f"({op})", said)


def test_split_to_sequence_refuses_a_chunk_size_of_zero() -> None:
    node = h.make_node("SplitToSequence", ["x", "s"], ["y"])
    _refused(_model([node], [_x("x", [4, 6])], [_i64("s", 0)]), "'split'", "positive, got 0")


@pytest.mark.parametrize("op", ["Softmax", "Hardmax", "LogSoftmax"])
@pytest.mark.parametrize("opset", [1, 11, 13, 21])
def test_softmax_family_refuses_a_scalar(op: str, opset: int) -> None:
    model = _model([h.make_node(op, ["x"], ["y"])], [_x("x", [])], opset=opset)
    _refused(model, op, "rank >= 1", "scalar")


def test_softmax_family_refuses_an_axis_out_of_range() -> None:
    model = _model([h.make_node("Softmax", ["x"], ["y"], axis=2)], [_x("x", [2, 3])])
    _refused(model, "Softmax", "axis=2 is out of range")


def test_one_hot_negative_indices_are_valid_but_a_negative_depth_is_not() -> None:
    # The standard counts a negative index from the end (within [-depth, depth - 1]).
    values = nh.from_array(np.array([0, 1], np.float32), "v")
    node = h.make_node("OneHot", ["i", "d", "v"], ["y"])
    good = _model([node], initializers=[_i64("i", [-1, 2]), _i64("d", [3]), values])
    assert _output_type(good) == Tensor(oc.dtypes.ElementType.FLOAT, (2, 3))
    bad = _model([node], initializers=[_i64("i", [-1, 2]), _i64("d", [-3]), values])
    _refused(bad, "OneHot", "'depth' must not be negative, got -3")
    negative_float = nh.from_array(np.array([-3.0], np.float32), "d")
    bad = _model([node], initializers=[_i64("i", [-1, 2]), negative_float, values])
    _refused(bad, "OneHot", "'depth' must not be negative, got -3")
    three = nh.from_array(np.array([0, 1, 2], np.float32), "v")
    bad = _model([node], initializers=[_i64("i", [-1, 2]), _i64("d", [3]), three])
    _refused(bad, "OneHot", "'values' must hold two elements")


@pytest.mark.parametrize(
    "op, gates, direction, directions_given",
    [
        ("LSTM", 4, "bidirectional", 1),
        ("GRU", 3, "bidirectional", 1),
        ("RNN", 1, "forward", 2),
        ("RNN", 1, "reverse", 2),
    ],
)
def test_recurrent_weights_must_match_the_direction(
    op: str, gates: int, direction: str, directions_given: int
) -> None:
    node = h.make_node(op, ["x", "w", "r"], ["y"], hidden_size=2, direction=direction)
    inputs = [
        _x("x", [3, 1, 4]),
        _x("w", [directions_given, gates * 2, 4]),
        _x("r", [directions_given, gates * 2, 2]),
    ]
    _refused(_model([node], inputs), op, "'W'", "number of directions")


def test_range_reads_float16_values_stored_in_int32_data() -> None:
    # onnx's helper stores float16 values as their bits in int32_data.
    inits = [h.make_tensor(n, T.FLOAT16, [], [v]) for n, v in [("s", 1), ("l", 5), ("d", 2)]]
    assert inits[0].int32_data and not inits[0].raw_data
    model = _model([h.make_node("Range", ["s", "l", "d"], ["y"])], initializers=inits)
    assert _output_type(model) == Tensor(oc.dtypes.ElementType.FLOAT16, (2,))
    value = oc.to_value(oc.proto.TensorProto.FromString(inits[1].SerializeToString()))
    assert value.dtype == np.float16 and float(value) == 5.0


def test_constant_of_shape_refuses_an_int32_shape() -> None:
    shape = nh.from_array(np.array([2, 3], np.int32), "s")
    model = _model([h.make_node("ConstantOfShape", ["s"], ["y"])], initializers=[shape])
    _refused(model, "ConstantOfShape", "int64, got int32")


# -- as much as onnx's inference knows ------------------------------------------------------------


def _onnx_output_shape(model: onnx.ModelProto) -> list[int | None]:
    inferred = shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    t = inferred.graph.output[0].type
    t = t.sequence_type.elem_type.tensor_type if t.HasField("sequence_type") else t.tensor_type
    return [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]


def _seq_out() -> list[Any]:
    elem = h.make_tensor_type_proto(0, None)
    return [h.make_value_info("y", h.make_sequence_type_proto(elem))]


AS_ONNX = {
    "expand with a partly known shape": _model(
        [
            h.make_node("Shape", ["a"], ["sa"]),
            h.make_node("Concat", ["sa", "c"], ["t"], axis=0),
            h.make_node("Expand", ["x", "t"], ["y"]),
        ],
        [_x("x", [3, 5]), _x("a", [None])],
        [_i64("c", [1])],
    ),
    "resize-11 with constant scales": _model(
        [h.make_node("Resize", ["x", "roi", "sc"], ["y"])],
        [_x("x", [1, 3, 4, 5])],
        [
            nh.from_array(np.array([], np.float32), "roi"),
            nh.from_array(np.array([1, 1, 1.5, 1.3], np.float32), "sc"),
        ],
        opset=11,
    ),
    "resize-11 with constant sizes": _model(
        [h.make_node("Resize", ["x", "roi", "sc", "sz"], ["y"])],
        [_x("x", [1, 3, 4, 5])],
        [
            nh.from_array(np.array([], np.float32), "roi"),
            nh.from_array(np.array([], np.float32), "sc"),
            _i64("sz", [1, 3, 8, 9]),
        ],
        opset=11,
    ),
    "split-to-sequence with a constant scalar split": _model(
        [h.make_node("SplitToSequence", ["x", "s"], ["y"])],
        [_x("x", [4, 6])],
        [_i64("s", 2)],
        outputs=_seq_out(),
    ),
    "split-to-sequence with equal constant lengths": _model(
        [h.make_node("SplitToSequence", ["x", "s"], ["y"], axis=1)],
        [_x("x", [4, 6])],
        [_i64("s", [3, 3])],
        outputs=_seq_out(),
    ),
}


@pytest.mark.parametrize("name", sorted(AS_ONNX))
def test_static_wherever_onnx_is(name: str) -> None:
    model = AS_ONNX[name]
    expected = _onnx_output_shape(model)
    assert None not in expected  # the case is one where onnx knows every dim
    out = _output_type(model)
    if isinstance(out, Sequence):
        out = out.elem
    assert isinstance(out, Tensor) and out.shape is not None
    assert list(out.shape) == expected


def test_split_to_sequence_refuses_lengths_that_do_not_add_up() -> None:
    node = h.make_node("SplitToSequence", ["x", "s"], ["y"])
    model = _model([node], [_x("x", [4, 6])], [_i64("s", [1, 2])], outputs=_seq_out())
    _refused(model, "sums to 3", "dim 4")
