"""The seventh pass on ``oc.infer_shapes`` (issue 17): the walk. Reshape answered directly
from its known shape, direct answers found in one look-up from the node step, the first
node of an attribute list inferred without a key, and the types of a protobuf model's walk
known to hold dims within int64. Each one answers what the plain path (or the rule) answers.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.infer import graph as walk
from onnxcraft.infer.direct import DIRECT, VALUED_DIRECT, direct_context
from onnxcraft.infer.engine import infer_node
from onnxcraft.infer.graph import GraphInference
from onnxcraft.ops.infer_api import SymbolicValue
from onnxcraft.proto import ModelProto
from onnxcraft.proto.inference import _ReadTensor, read_for_inference
from onnxcraft.proto.onnx_pb2 import TensorProto
from onnxcraft.types import SparseTensor, Tensor, ValueType
from tests.infer.test_direct import _empty_model, _op_info
from tests.infer.test_fast_paths import assert_same

INT64 = 7


def _float_dims(info: Any, dims: Any) -> None:
    """Type a value_info entry (an input, a declared value) as a float tensor of these dims."""
    info.type.tensor_type.elem_type = 1
    for d in dims:
        info.type.tensor_type.shape.dim.add(dim_value=d)


# -- Reshape's direct answer against its rule ----------------------------------------------------

_DIM = st.one_of(st.integers(0, 6), st.integers(1, 6), st.sampled_from(["N", None, 2**62]))
_TARGET = st.one_of(st.integers(-3, 8), st.sampled_from([-1, 0, 0, 24, 2**62]))


@st.composite
def _input(draw: st.DrawFn) -> ValueType | None:
    """x: mostly a float tensor of known dims; now and then symbolic or unknown dims, an
    unknown rank, a sparse tensor, no type."""
    kind = draw(st.sampled_from(["tensor"] * 6 + ["no rank", "sparse", "none"]))
    shape = tuple(draw(st.lists(_DIM, max_size=4)))
    if kind == "none":
        return None
    if kind == "no rank":
        return Tensor(np.float32, None)
    if kind == "sparse":
        return SparseTensor(np.float32, tuple(d if d != 2**62 else 3 for d in shape))
    return Tensor(draw(st.sampled_from([np.float32, np.int64])), shape)


@st.composite
def _shape_value(draw: st.DrawFn) -> Any:
    """The shape input's known value: an int64 vector (as an array or a tensor read lazily),
    now and then of another type or rank, empty, scalar, symbolic or unknown."""
    entries = draw(st.lists(_TARGET, max_size=5))
    kind = draw(st.sampled_from(["array", "read", "read", "int32", "float", "2-D", "0-D"]))
    kind = draw(st.sampled_from([kind] * 8 + ["symbolic", "none"]))
    if kind == "none":
        return None
    if kind == "symbolic":
        return SymbolicValue(tuple(entries), False)
    if kind == "0-D":
        return np.array(entries[0] if entries else 4, np.int64)
    if kind == "int32":
        return np.array([e for e in entries if abs(e) < 2**31], np.int32)
    if kind == "float":
        return np.array(entries, np.float64)
    array = np.array(entries, np.int64)
    if kind == "2-D":
        return array.reshape(1, -1)
    if kind == "array":
        return array
    tensor = TensorProto(data_type=INT64, dims=[len(entries)], raw_data=array.tobytes())
    return _ReadTensor(tensor)


def _fresh(value: Any) -> Any:
    """A second copy of ``value`` (a lazily read tensor decodes once: each side has its own)."""
    if isinstance(value, _ReadTensor):
        return _ReadTensor(value.source)
    return value


@settings(max_examples=500, deadline=None)
@given(
    x=_input(),
    value=_shape_value(),
    allow_zero=st.sampled_from([None, 0, 1]),
    opset=st.sampled_from([5, 13, 14, 21]),
    outputs=st.sampled_from([1, 1, 1, 2]),
)
def test_reshape_answers_as_its_rule(
    x: ValueType | None, value: Any, allow_zero: int | None, opset: int, outputs: int
) -> None:
    _check_reshape(x, value, allow_zero, opset, outputs)


@settings(max_examples=300, deadline=None)
@given(
    dims=st.lists(st.integers(0, 6), max_size=4),
    data=st.data(),
    allow_zero=st.sampled_from([None, 0, 1]),
    lazy=st.booleans(),
)
def test_reshape_of_consistent_shapes_answers_as_its_rule(
    dims: list[int], data: st.DataObject, allow_zero: int | None, lazy: bool
) -> None:
    """Targets made from x's own dims (regrouped, with 0s and a -1 now and then): mostly
    answered directly."""
    target = list(dims)
    if len(target) > 1 and data.draw(st.booleans()):
        target = [target[0] * target[1], *target[2:]]  # two axes merged
    for i in range(len(target)):
        target[i] = data.draw(st.sampled_from([target[i]] * 4 + [0, -1]))
    array = np.array(target, np.int64)
    value = _as_read(array) if lazy else array
    _check_reshape(Tensor(np.float32, tuple(dims)), value, allow_zero, 21, 1)


def _as_read(array: np.ndarray) -> Any:
    """An int64 vector as the inference reader gives a small initializer (decoded lazily)."""
    return _ReadTensor(TensorProto(data_type=INT64, dims=[len(array)], raw_data=array.tobytes()))


def _check_valued(
    op: Any,
    attributes: dict[str, Any],
    types: list[ValueType | None],
    value: Any,
    opset: int,
    outputs: int,
) -> None:
    """The valued direct answer of ``op`` (its second input's value known), when it gives
    one, is the rule's, and the rule reads that value without a warning."""
    ctx = direct_context(op, attributes, {})
    direct = VALUED_DIRECT[op.op_type](ctx, types, [None, value], outputs)  # (never raises)
    if direct is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a rule's warning would fail here
        ruled, values, read = infer_node(
            op, types, [None, _fresh(value)], attributes, outputs, opset, None, [True, True], {}
        )
    assert (ruled, values, read) == (direct, {}, True)


def _check_reshape(
    x: ValueType | None, value: Any, allow_zero: int | None, opset: int, outputs: int
) -> None:
    op = _op_info("Reshape", opset)
    attributes = {} if allow_zero is None or opset < 14 else {"allowzero": allow_zero}
    types: list[ValueType | None] = [x, Tensor(np.int64, (3,))]
    _check_valued(op, attributes, types, value, opset, outputs)


def test_reshape_declines_before_version_5() -> None:
    op = _op_info("Reshape", 4)
    ctx = direct_context(op, {"shape": [2, -1]}, {})
    x = Tensor(np.float32, (4, 6))
    assert VALUED_DIRECT["Reshape"](ctx, [x, None], [None, np.array([2, -1])], 1) is None


# -- the one-input operators' direct answers against their rules ---------------------------------

_ONE_INPUT = [
    ("GlobalAveragePool", 21),
    ("GlobalMaxPool", 1),
    ("GlobalLpPool", 2),
    ("Softmax", 1),
    ("Softmax", 11),
    ("Softmax", 13),
    ("LogSoftmax", 21),
    ("Hardmax", 11),
    ("Flatten", 1),
    ("Flatten", 9),
    ("Flatten", 11),
    ("Flatten", 21),
]


@settings(max_examples=600, deadline=None)
@given(
    case=st.sampled_from(_ONE_INPUT),
    x=_input(),
    axis=st.one_of(st.none(), st.integers(-6, 6)),
    outputs=st.sampled_from([1, 1, 1, 2]),
)
def test_one_input_operators_answer_as_their_rules(
    case: tuple[str, int], x: ValueType | None, axis: int | None, outputs: int
) -> None:
    name, opset = case
    op = _op_info(name, opset)
    attributes = {} if axis is None or "axis" not in op.attributes else {"axis": axis}
    direct = DIRECT[name](direct_context(op, attributes, {}), [x], outputs)  # (never raises)
    if direct is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a rule's warning would fail here
        ruled, values, read = infer_node(
            op, [x], [None], attributes, outputs, opset, None, [True], {}
        )
    assert (ruled, values, read) == (direct, {}, False)


@settings(max_examples=200, deadline=None)
@given(
    case=st.sampled_from(_ONE_INPUT),
    dims=st.lists(st.integers(0, 5), max_size=5),
    batch=st.sampled_from([1, "N", None]),
    axis=st.one_of(st.none(), st.integers(-3, 3)),
)
def test_one_input_operators_of_known_dims_answer_as_their_rules(
    case: tuple[str, int], dims: list[int], batch: Any, axis: int | None
) -> None:
    """Mostly answered directly (a symbolic or unknown batch now and then)."""
    name, opset = case
    op = _op_info(name, opset)
    x = Tensor(np.float32, (batch, *dims)) if dims or batch != 1 else Tensor(np.float32, ())
    attributes = {} if axis is None or "axis" not in op.attributes else {"axis": axis}
    direct = DIRECT[name](direct_context(op, attributes, {}), [x], 1)
    if direct is None:
        return
    ruled, values, read = infer_node(op, [x], [None], attributes, 1, opset, None, [True], {})
    assert (ruled, values, read) == (direct, {}, False)


@settings(max_examples=400, deadline=None)
@given(
    x=_input(),
    perm=st.one_of(st.none(), st.lists(st.integers(-1, 4), max_size=5), st.permutations(range(4))),
    opset=st.sampled_from([1, 13, 21]),
    outputs=st.sampled_from([1, 1, 1, 2]),
)
def test_transpose_answers_as_its_rule(
    x: ValueType | None, perm: list[int] | None, opset: int, outputs: int
) -> None:
    op = _op_info("Transpose", opset)
    attributes = {} if perm is None else {"perm": tuple(perm)}
    direct = DIRECT["Transpose"](direct_context(op, attributes, {}), [x], outputs)
    if direct is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a rule's warning would fail here
        ruled, values, read = infer_node(
            op, [x], [None], attributes, outputs, opset, None, [True], {}
        )
    assert (ruled, values, read) == (direct, {}, False)


@st.composite
def _head(draw: st.DrawFn) -> bytes:
    """A classifier's head: Transpose, a global pool, Flatten and Softmax (their attributes
    drawn, some out of range), a declared output now and then (right or wrong)."""
    opset = draw(st.sampled_from([9, 11, 13, 21]))
    model = _empty_model(opset)
    graph = model.graph
    info = graph.input.add(name="x")
    _float_dims(info, draw(st.sampled_from([(1, 8, 3, 3), (2, 4, 5), (1, 8), (3,)])))
    shuffled = graph.node.add(op_type="Transpose", input=["x"], output=["t"])
    if draw(st.booleans()):
        shuffled.attribute.add(
            name="perm", type=7, ints=draw(st.sampled_from([[0, 1, 2, 3], [1, 0, 3, 2], [0, 2, 1]]))
        )
    pool = draw(st.sampled_from(["GlobalAveragePool", "GlobalMaxPool"]))
    graph.node.add(op_type=pool, input=["t"], output=["p"])
    flatten = graph.node.add(op_type="Flatten", input=["p"], output=["f"])
    if draw(st.booleans()):
        flatten.attribute.add(name="axis", type=2, i=draw(st.integers(-5, 5)))
    soft = graph.node.add(op_type=draw(st.sampled_from(["Softmax", "LogSoftmax"])), input=["f"])
    soft.output.append("y")
    if draw(st.booleans()):
        soft.attribute.add(name="axis", type=2, i=draw(st.integers(-3, 3)))
    out = graph.output.add(name="y")
    if draw(st.booleans()):
        _float_dims(out, draw(st.sampled_from([(1, 8), (2, 4), (8,)])))
    return model.SerializeToString()


# -- Split's direct answer against its rule ------------------------------------------------------


@settings(max_examples=500, deadline=None)
@given(
    x=_input(),
    value=_shape_value(),
    axis=st.one_of(st.none(), st.integers(-5, 4)),
    opset=st.sampled_from([11, 13, 18, 21]),
    outputs=st.integers(1, 4),
)
def test_split_answers_as_its_rule(
    x: ValueType | None, value: Any, axis: int | None, opset: int, outputs: int
) -> None:
    _check_split(x, value, axis, opset, outputs)


@settings(max_examples=300, deadline=None)
@given(
    dims=st.lists(st.integers(0, 6), min_size=1, max_size=4),
    data=st.data(),
    lazy=st.booleans(),
)
def test_split_at_consistent_sizes_answers_as_its_rule(
    dims: list[int], data: st.DataObject, lazy: bool
) -> None:
    """Sizes that mostly add up to the axis: mostly answered directly."""
    axis = data.draw(st.integers(-len(dims), len(dims) - 1))
    dim = dims[axis]
    cut = data.draw(st.integers(0, dim))
    sizes = data.draw(st.sampled_from([[cut, dim - cut], [dim], [cut, dim - cut, 0], [dim + 1]]))
    array = np.array(sizes, np.int64)
    value = _as_read(array) if lazy else array
    outputs = data.draw(st.sampled_from([len(sizes)] * 4 + [2]))
    _check_split(Tensor(np.float32, tuple(dims)), value, axis, 21, outputs)


def _check_split(
    x: ValueType | None, value: Any, axis: int | None, opset: int, outputs: int
) -> None:
    op = _op_info("Split", opset)
    attributes = {} if axis is None else {"axis": axis}
    types: list[ValueType | None] = [x, Tensor(np.int64, (2,))]
    _check_valued(op, attributes, types, value, opset, outputs)


# -- drawn models against the plain path ----------------------------------------------------------


@st.composite
def _split_chain(draw: st.DrawFn) -> bytes:
    """Splits of a (2, 6, 4) input at constant sizes (valid or not, some shared), their parts
    joined back or passed on, a declared type now and then (right or wrong)."""
    model = _empty_model(draw(st.sampled_from([13, 18, 21])))
    graph = model.graph
    info = graph.input.add(name="x")
    _float_dims(info, (2, 6, 4))
    choices = [(3, 3), (2, 4), (6,), (1, 5), (3, 4), (-1, 7), (2, 2, 2)]
    sizes = draw(st.lists(st.sampled_from(choices), min_size=1, max_size=3))
    for i, parts in enumerate(sizes):
        tensor = graph.initializer.add(name=f"s{i}", data_type=INT64, dims=[len(parts)])
        tensor.raw_data = np.asarray(parts, "<i8").tobytes()
    last = "x"
    for j in range(draw(st.integers(1, 5))):
        use = draw(st.integers(0, len(sizes) - 1))
        count = draw(st.sampled_from([len(sizes[use])] * 3 + [2]))
        outs = [f"p{j}_{k}" for k in range(count)]
        node = graph.node.add(op_type="Split", input=[last, f"s{use}"], output=outs)
        node.attribute.add(name="axis", type=2, i=draw(st.sampled_from([1, 1, -2, 0, 3])))
        if len(outs) > 1 and draw(st.booleans()):
            graph.node.add(op_type="Concat", input=outs, output=[f"c{j}"]).attribute.add(
                name="axis", type=2, i=1
            )
            last = f"c{j}"
        else:
            last = outs[0]
        if draw(st.integers(0, 3)) == 0:
            out = graph.value_info.add(name=last)
            _float_dims(out, draw(st.sampled_from([(2, 6, 4), (2, 3, 4)])))
    graph.output.add(name=last)
    return model.SerializeToString()


@st.composite
def _reshape_chain(draw: st.DrawFn) -> bytes:
    """Reshapes of a 24-element input by shape constants (valid or not, some shared), with
    Relus between, a declared output type now and then (right or wrong)."""
    model = _empty_model(draw(st.sampled_from([13, 14, 21])))
    graph = model.graph
    info = graph.input.add(name="x")
    _float_dims(info, draw(st.sampled_from([(24,), (2, 12), (4, 3, 2), (0, 5)])))
    shapes = draw(
        st.lists(
            st.sampled_from(
                [(24,), (2, -1), (0, -1), (4, 3, 2), (-1, -1), (5, -1), (0, 0, 0), (-2, 12), ()]
            ),
            min_size=1,
            max_size=3,
        )
    )
    for i, shape in enumerate(shapes):
        tensor = graph.initializer.add(name=f"s{i}", data_type=INT64, dims=[len(shape)])
        tensor.raw_data = np.asarray(shape, "<i8").tobytes()
    last = "x"
    for j in range(draw(st.integers(1, 6))):
        use = draw(st.integers(0, len(shapes) - 1))
        node = graph.node.add(op_type="Reshape", input=[last, f"s{use}"], output=[f"r{j}"])
        if draw(st.booleans()):
            node.attribute.add(name="allowzero", type=2, i=draw(st.integers(0, 1)))
        last = f"r{j}"
        if draw(st.booleans()):
            graph.node.add(op_type="Relu", input=[last], output=[f"y{j}"])
            last = f"y{j}"
        if draw(st.integers(0, 3)) == 0:
            out = graph.value_info.add(name=last)
            _float_dims(out, draw(st.sampled_from([(24,), (2, 12), (4, 6)])))
    graph.output.add(name=last)
    return model.SerializeToString()


@st.composite
def _blocks(draw: st.DrawFn) -> bytes:
    """Convolutions, pools, BatchNormalizations and Concats sharing attribute lists (the reader's),
    few weights per type (Conv answered before its key) or many, sometimes inconsistent."""
    model = _empty_model()
    graph = model.graph
    info = graph.input.add(name="x")
    _float_dims(info, (1, 4, 8, 8))
    channels = 4
    last = "x"
    for j in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["conv", "conv", "bn", "concat", "pool"]))
        if kind == "pool":  # (answered before its key where Conv is)
            op_type = draw(st.sampled_from(["MaxPool", "AveragePool"]))
            node = graph.node.add(op_type=op_type, input=[last], output=[f"c{j}"])
            node.attribute.add(
                name="kernel_shape", type=7, ints=draw(st.sampled_from([[1, 1], [3, 3], [9, 9]]))
            )
            if draw(st.booleans()):
                node.attribute.add(name="pads", type=7, ints=[1, 1, 1, 1])
        elif kind == "conv":
            wrong = draw(st.integers(0, 5)) == 0
            w = graph.initializer.add(name=f"w{j}", data_type=1, dims=[4, channels + wrong, 1, 1])
            w.raw_data = bytes(4 * 4 * (channels + wrong))
            node = graph.node.add(op_type="Conv", input=[last, f"w{j}"], output=[f"c{j}"])
            node.attribute.add(name="kernel_shape", type=7, ints=[1, 1])
            channels = 4
        elif kind == "bn":
            names = []
            for p in range(4):
                t = graph.initializer.add(name=f"p{j}_{p}", data_type=1, dims=[channels])
                t.raw_data = bytes(4 * channels)
                names.append(t.name)
            node = graph.node.add(
                op_type="BatchNormalization", input=[last, *names], output=[f"c{j}"]
            )
            node.attribute.add(name="epsilon", type=1, f=1e-5)
        else:
            node = graph.node.add(op_type="Concat", input=[last, last], output=[f"c{j}"])
            node.attribute.add(name="axis", type=2, i=1)
            channels *= 2
        last = f"c{j}"
        if draw(st.integers(0, 3)) == 0:
            out = graph.value_info.add(name=last)
            _float_dims(out, (1, draw(st.sampled_from([4, 8, 16])), 8, 8))
    # A few unused weights of one type: the walk's choice of Conv before its key varies.
    for k in range(draw(st.integers(0, 20))):
        t = graph.initializer.add(name=f"u{k}", data_type=1, dims=[2])
        t.raw_data = bytes(8)
    graph.output.add(name=last)
    return model.SerializeToString()


@pytest.mark.parametrize("models", [_head, _split_chain, _reshape_chain, _blocks])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_drawn_models_answer_as_the_plain_path(models: Any, data: st.DataObject) -> None:
    """Heads, Split chains, Reshape chains and blocks of convolutions: the walk's answers
    are the plain path's."""
    assert_same(data.draw(models()))  # (strict and not)


def _walk(data: bytes) -> GraphInference:
    model, _, typed = read_for_inference(ModelProto.FromString(data), values_up_to=64)
    runner = GraphInference({}, model.opset_imports, False)
    runner.graph(model.graph, {}, {}, model.opset_imports, added=[], typed_initializers=typed)
    return runner


def test_a_protobuf_model_walk_is_bounded() -> None:
    """Read from a protobuf, every type holds int64 dims; an IR model's walk checks."""
    model = _empty_model()
    graph = model.graph
    info = graph.input.add(name="x")
    info.type.tensor_type.elem_type = 1
    info.type.tensor_type.shape.dim.add(dim_value=3)
    graph.node.add(op_type="Relu", input=["x"], output=["y"])
    graph.output.add(name="y")
    assert _walk(model.SerializeToString())._bounded
    assert not GraphInference({}, {"": 21}, False)._bounded
    # An IR model whose initializer has a dim past int64: its pass-through still warns.
    x = oc.ir.TensorData("x", oc.dtypes.ElementType.FLOAT, (2**63,), load=lambda: np.zeros(0))
    ir_model = oc.ir.Model(
        oc.ir.Graph(
            nodes=[oc.ir.Node("Relu", ["x"], ["y"])],
            outputs=[oc.ir.ValueInfo("y")],
            initializers=[x],
        ),
        opset_imports={"": 21},
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        oc.infer_shapes(ir_model)
    assert any("int64" in str(w.message) for w in caught)


def test_the_first_node_of_a_list_makes_no_key() -> None:
    """BatchNormalizations sharing one attribute list: the first is inferred without a key,
    the others answered directly; nothing is remembered."""
    model = _empty_model()
    graph = model.graph
    info = graph.input.add(name="x")
    _float_dims(info, (1, 4, 2, 2))
    last = "x"
    for j in range(3):
        names = []
        for p in range(4):
            t = graph.initializer.add(name=f"p{j}_{p}", data_type=1, dims=[4])
            t.raw_data = bytes(16)
            names.append(t.name)
        node = graph.node.add(op_type="BatchNormalization", input=[last, *names], output=[f"b{j}"])
        node.attribute.add(name="epsilon", type=1, f=1e-3)
        last = f"b{j}"
    graph.output.add(name=last)
    runner = _walk(model.SerializeToString())
    assert runner.memo == {}
    assert len(runner._ready) == 1
    assert_same(model.SerializeToString())


def test_the_resolved_facts_are_unchanged() -> None:
    """The process's operator facts still have their six items (the rule last)."""
    oc.infer_shapes(_walk_model_bytes())
    kept = walk._OPERATORS[("", "Reshape", 21)]
    assert len(kept) == 6 and walk._resolve("", "Reshape", 21) == kept


def _walk_model_bytes() -> bytes:
    model = _empty_model()
    graph = model.graph
    info = graph.input.add(name="x")
    info.type.tensor_type.elem_type = 1
    info.type.tensor_type.shape.dim.add(dim_value=6)
    tensor = graph.initializer.add(name="s", data_type=INT64, dims=[2])
    tensor.raw_data = np.asarray((2, -1), "<i8").tobytes()
    graph.node.add(op_type="Reshape", input=["x", "s"], output=["y"])
    graph.output.add(name="y")
    return model.SerializeToString()
