"""The inference reader takes the main graph's attributes and value types from the model's
bytes (``proto/encoded_graph.py``, issue 17): it reads the same IR as from the parsed message,
shares equal attribute lists and equal types alike, and declines models that are mostly
weights.

``tests/infer/test_fast_paths.py`` compares ``oc.infer_shapes`` of a model's bytes (this path)
with the plain walk on every node-test model and thousands of corrupted ones.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft import ir
from onnxcraft.infer.model import InferenceWarning, _infer
from onnxcraft.proto import AttributeProto, ModelProto, TypeProto, ValueInfoProto
from onnxcraft.proto.encoded_graph import BYTES_PER_NODE, encoded_graph
from onnxcraft.proto.inference import (
    _DIM_ENTRIES,
    _dim_entry,
    _tensor_type_encoding,
    _type_encoding,
    read_for_inference,
    read_with_bodies,
    write_inferred_types,
)
from onnxcraft.proto.serde import model_from_proto, type_to_proto
from onnxcraft.types import Tensor
from tests.infer.test_direct import _input as typed_input
from tests.node_cases import case_names, node_tests_root

A = AttributeProto


def _read_both(data: bytes) -> tuple[ir.Model, ir.Model]:
    proto = ModelProto.FromString(data)
    from_message = read_for_inference(proto, values_up_to=64).model
    from_bytes = read_for_inference(proto, values_up_to=64, data=data).model
    return from_message, from_bytes


def _assert_same_value_info(data: bytes) -> list[ir.ValueInfo]:
    from_message, from_bytes = _read_both(data)
    assert from_bytes.graph.value_info == from_message.graph.value_info
    return from_bytes.graph.value_info


def _attribute_view(attribute: ir.Attribute) -> Any:
    """An attribute as comparable data (tensors by their arrays, graphs by their nodes)."""
    value = attribute.value
    if isinstance(value, ir.TensorData):
        array = value.array()
        value = (value.name, str(array.dtype), array.shape, array.tobytes())
    elif isinstance(value, ir.Graph):
        value = [_node_view(n) for n in value.nodes]
    elif isinstance(value, list):
        value = [_attribute_view(ir.Attribute("", attribute.type, v)) for v in value]
    elif attribute.type in ("FLOAT", "FLOATS"):
        value = repr(value)  # (tells -0.0 from 0.0, and a NaN equals itself)
    return (attribute.name, attribute.type, value, attribute.ref)


def _node_view(node: ir.Node) -> Any:
    return (
        node.op_type,
        node.inputs,
        node.outputs,
        node.domain,
        node.name,
        [_attribute_view(a) for a in node.attributes],
    )


def _assert_same_nodes(data: bytes) -> list[ir.Node]:
    from_message, from_bytes = _read_both(data)
    assert [_node_view(n) for n in from_bytes.graph.nodes] == [
        _node_view(n) for n in from_message.graph.nodes
    ]
    # The reader sets a node's fields itself: every field of ir.Node, in order, as its
    # constructor would (a field added to ir.Node must be added there too).
    fields = [f.name for f in dataclasses.fields(ir.Node)]
    for node in from_bytes.graph.nodes + from_message.graph.nodes:
        assert type(node) is ir.Node
        assert list(vars(node)) == fields
        made = ir.Node(node.op_type, node.inputs, node.outputs, node.domain, node.name)
        made.attributes = node.attributes
        assert vars(node) == vars(made)
    return from_bytes.graph.nodes


@pytest.mark.parametrize("name", case_names()[::7])
def test_node_test_models_read_alike(name: str) -> None:
    data = (node_tests_root() / name / "model.onnx").read_bytes()
    proto = ModelProto.FromString(data)
    if proto.graph.node:
        assert encoded_graph(data, len(proto.graph.node)) is not None
    _assert_same_nodes(data)
    _assert_same_value_info(data)


def _model(
    node_attributes: list[list[AttributeProto]], weights: int = 0, op_type: str = "Identity"
) -> bytes:
    """Nodes of ``op_type`` in a chain, each with the given attributes, and an initializer
    of ``weights`` float32 values stored inline."""
    model = ModelProto(ir_version=10)
    model.opset_import.add(domain="", version=21)
    graph = model.graph
    info = graph.input.add(name="x")
    info.type.tensor_type.elem_type = 1
    previous = "x"
    for i, attributes in enumerate(node_attributes):
        node = graph.node.add(op_type=op_type, input=[previous], output=[f"y{i}"])
        node.attribute.extend(attributes)
        previous = f"y{i}"
    graph.output.add(name=previous)
    if weights:
        graph.initializer.append(oc.from_array(np.ones(weights, np.float32), "w"))
    return model.SerializeToString()  # type: ignore[no-any-return]


_names = st.sampled_from(["axis", "perm", "mode", "alpha", "value", "body"])
_floats = st.sampled_from([0.0, -0.0, 1.5, float("inf"), float("nan"), -2.0])


@st.composite
def _attribute(draw: st.DrawFn) -> AttributeProto:
    name = draw(_names)
    kind = draw(st.sampled_from(["INT", "INTS", "FLOAT", "FLOATS", "STRING", "STRINGS",
                                 "TENSOR", "GRAPH", "UNSET", "REF"]))  # fmt: skip
    if kind == "INT":
        return A(name=name, type=A.INT, i=draw(st.integers(-(2**63), 2**63 - 1)))
    if kind == "INTS":
        return A(name=name, type=A.INTS, ints=draw(st.lists(st.integers(-5, 5), max_size=4)))
    if kind == "FLOAT":
        return A(name=name, type=A.FLOAT, f=draw(_floats))
    if kind == "FLOATS":
        return A(name=name, type=A.FLOATS, floats=draw(st.lists(_floats, max_size=3)))
    if kind == "STRING":
        return A(name=name, type=A.STRING, s=draw(st.sampled_from([b"", b"constant", b"\xc3\xa9"])))
    if kind == "STRINGS":
        return A(name=name, type=A.STRINGS, strings=draw(st.lists(st.sampled_from([b"a", b"bc"]))))
    if kind == "TENSOR":
        values = np.array(draw(st.lists(st.integers(-3, 3), min_size=1, max_size=4)), np.int64)
        return A(name=name, type=A.TENSOR, t=oc.from_array(values, "t"))
    if kind == "GRAPH":
        body = A(name=name, type=A.GRAPH)
        body.g.name = "body"
        body.g.node.add(op_type="Identity", input=["x"], output=["z"])
        return body
    if kind == "UNSET":  # no type: the reader guesses it from the field that is set
        return A(name=name, i=draw(st.integers(-3, 3)))
    return A(name=name, type=A.INT, ref_attr_name="outer")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_attribute(), max_size=3), min_size=1, max_size=6), st.data())
def test_drawn_attributes_read_alike_and_shared(
    lists: list[list[AttributeProto]], data: st.DataObject
) -> None:
    # Some lists twice, so that equal encodings meet.
    lists = lists + [lists[data.draw(st.integers(0, len(lists) - 1))]]
    nodes = _assert_same_nodes(_model(lists))
    plain = {A.INT, A.INTS, A.FLOAT, A.FLOATS, A.STRING, A.STRINGS}
    encodings = [[a.SerializeToString() for a in attributes] for attributes in lists]
    for i, attributes in enumerate(lists):
        if not attributes or any(a.type not in plain or a.ref_attr_name for a in attributes):
            continue
        for j in range(len(lists)):
            if encodings[j] == encodings[i]:
                # equal plain lists are one list: the walk keys its memory by it
                assert nodes[i].attributes is nodes[j].attributes
    # Whether a node may hold a graph: only a list other than a shared plain one can, and
    # the writer then looks at every node; it gives the same bytes as looking always.
    unshared = any(any(a.type not in plain or a.ref_attr_name for a in x) for x in lists)
    data_bytes = _model(lists)
    for given_data in (None, data_bytes):
        written = []
        for always in (False, True):
            proto = ModelProto.FromString(data_bytes)
            (model, initializers, typed), bodies = read_with_bodies(
                proto, values_up_to=64, data=given_data
            )
            assert bodies is unshared
            added: list[Any] = []
            with warnings.catch_warnings():  # (the drawn attributes are not Identity's: the
                warnings.simplefilter("ignore", InferenceWarning)  # walk warns of them)
                _infer(model, initializers, False, added, typed)
            write_inferred_types(proto, model, added, bodies=bodies or always)
            written.append(proto.SerializeToString())
        assert written[0] == written[1]


def test_a_body_is_typed_from_the_bytes() -> None:
    # An If's branches hold graphs: the reader says so, and the writer types their values.
    model = ModelProto(ir_version=10)
    model.opset_import.add(domain="", version=21)
    graph = model.graph
    for name, elem in (("c", 9), ("x", 1)):
        info = graph.input.add(name=name)
        info.type.tensor_type.elem_type = elem
        info.type.tensor_type.shape.dim.add(dim_value=1 if name == "c" else 3)
    node = graph.node.add(op_type="If", input=["c"], output=["y"])
    for branch, op in (("then_branch", "Relu"), ("else_branch", "Neg")):
        body = node.attribute.add(name=branch, type=A.GRAPH).g
        body.name = branch
        body.node.add(op_type=op, input=["x"], output=[f"{branch}_t"])
        body.node.add(op_type="Abs", input=[f"{branch}_t"], output=[f"{branch}_out"])
        body.output.add(name=f"{branch}_out")
    graph.output.add(name="y")
    data = model.SerializeToString()
    assert read_with_bodies(ModelProto.FromString(data), values_up_to=64, data=data)[1]
    inferred = oc.infer_shapes(data)
    for attribute in inferred.graph.node[0].attribute:
        (entry,) = attribute.g.value_info
        assert entry.name == f"{attribute.name}_t"
        assert [d.dim_value for d in entry.type.tensor_type.shape.dim] == [3]


def test_models_mostly_weights_are_read_from_the_message() -> None:
    lean = _model([[A(name="axis", type=A.INT, i=1)]] * 2)
    heavy = _model([[A(name="axis", type=A.INT, i=1)]] * 2, weights=BYTES_PER_NODE)
    assert encoded_graph(lean, 2) is not None
    assert encoded_graph(heavy, 2) is None
    _assert_same_nodes(heavy)
    assert encoded_graph(lean, 3) is None  # (not the model it was said to be)
    assert encoded_graph(lean, 0) is None


def test_a_graph_written_twice_is_merged_alike() -> None:
    # Protobuf merges a message field that occurs twice: both readers see all nodes.
    first = _model([[A(name="axis", type=A.INT, i=1)]])
    second = _model([[A(name="perm", type=A.INTS, ints=[1, 0])]])
    _assert_same_nodes(first + second)


@pytest.mark.parametrize("source", ["bytes", "bytearray", "memoryview", "message"])
def test_every_kind_of_input_infers_alike(source: str) -> None:
    data = _model([[A(name="axis", type=A.INT, i=1)], []], op_type="Flatten")
    given_model: Any = {
        "bytes": data,
        "bytearray": bytearray(data),
        "memoryview": memoryview(data),
        "message": ModelProto.FromString(data),
    }[source]
    expected = oc.infer_shapes(ModelProto.FromString(data)).SerializeToString()
    assert oc.infer_shapes(given_model).SerializeToString() == expected


@st.composite
def _value_type(draw: st.DrawFn, depth: int = 0) -> TypeProto:
    """A TypeProto of any kind, or an empty one (no kind set)."""
    kind = draw(st.sampled_from(["tensor", "sparse", "sequence", "optional", "map", "empty"]))
    t = TypeProto()
    if kind in ("tensor", "sparse"):
        field = t.tensor_type if kind == "tensor" else t.sparse_tensor_type
        field.elem_type = draw(st.sampled_from([1, 7, 9, 0]))
        if draw(st.booleans()):  # a shape, each dim a value, a name or unknown
            field.shape.SetInParent()
            for dim in draw(st.lists(st.sampled_from([0, 1, 64, "N", ""]), max_size=4)):
                entry = field.shape.dim.add()
                if isinstance(dim, int):
                    entry.dim_value = dim
                elif dim:
                    entry.dim_param = dim
    elif kind in ("sequence", "optional") and depth < 2:
        inner = t.sequence_type if kind == "sequence" else t.optional_type
        inner.SetInParent()
        if draw(st.booleans()):
            inner.elem_type.CopyFrom(draw(_value_type(depth + 1)))
    elif kind == "map":
        t.map_type.key_type = draw(st.sampled_from([7, 8, 0]))
        t.map_type.value_type.tensor_type.elem_type = 1
    return t


@st.composite
def _value_info(draw: st.DrawFn, types: list[TypeProto]) -> ValueInfoProto:
    info = ValueInfoProto(name=draw(st.sampled_from(["a", "b", "", "\u00e9"])))
    if draw(st.integers(0, 4)):  # mostly typed, by one of a few shared types
        info.type.CopyFrom(draw(st.sampled_from(types)))
    if not draw(st.integers(0, 5)):
        info.doc_string = "documented"
    if not draw(st.integers(0, 5)):
        info.metadata_props.add(key="k", value="v")
    return info


@settings(max_examples=80, deadline=None)
@given(st.lists(_value_type(), min_size=1, max_size=4), st.data())
def test_drawn_value_info_read_alike_and_shared(
    types: list[TypeProto], data: st.DataObject
) -> None:
    model = ModelProto.FromString(_model([[]], op_type="Identity"))
    infos = data.draw(st.lists(_value_info(types), max_size=8))
    model.graph.value_info.extend(infos)
    read = _assert_same_value_info(model.SerializeToString())
    # equal encodings read as one type object (a model's values share a few types)
    by_encoding: dict[bytes, Any] = {}
    for info, proto in zip(read, infos):
        if proto.doc_string or proto.metadata_props or not proto.HasField("type"):
            continue
        seen = by_encoding.setdefault(proto.type.SerializeToString(), info.type)
        assert info.type is seen


def test_a_value_info_type_that_breaks_the_ir_is_refused_alike() -> None:
    model = ModelProto.FromString(_model([[]], op_type="Identity"))
    info = model.graph.value_info.add(name="y0")
    info.type.tensor_type.elem_type = 1
    info.type.tensor_type.shape.dim.add(dim_value=-2)
    data = model.SerializeToString()
    errors = []
    for given_data in (None, data):
        with pytest.raises(oc.ValidationError) as caught:
            read_for_inference(ModelProto.FromString(data), values_up_to=64, data=given_data)
        errors.append(str(caught.value))
    assert errors[0] == errors[1] and "-2" in errors[0]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["y", "é" * 70, "v" * 130, "w" * 125, ""]), min_size=1, max_size=5),
    st.lists(st.sampled_from([1, 3, 200, "N", "batch" * 30]), max_size=40),
)
def test_value_info_written_for_any_name_and_type_length(names: list[str], dims: list) -> None:
    """The writer encodes each entry's lengths in one byte where they fit, in full where
    not: long names (over 127 bytes, in UTF-8 too) and long types (many dims, long names)."""
    model = ModelProto(ir_version=10)
    model.opset_import.add(domain="", version=21)
    graph = model.graph
    typed_input(graph, "x", tuple(dims))
    previous = "x"
    outputs = [f"{name}{i}" for i, name in enumerate(names)]  # (distinct, never empty)
    for name in outputs:
        graph.node.add(op_type="Identity", input=[previous], output=[name])
        previous = name
    graph.output.add(name=previous)
    data = model.SerializeToString()
    written = oc.infer_shapes(data)
    expected = oc.infer_shapes(model_from_proto(ModelProto.FromString(data)))
    assert [v.name for v in written.graph.value_info] == outputs[:-1]
    # the bytes written parse back (through protobuf) to the IR walk's types
    read_back = model_from_proto(ModelProto.FromString(written.SerializeToString()))
    assert read_back.graph.value_info == expected.graph.value_info


@pytest.mark.parametrize("length", range(116, 124))
def test_value_info_entries_around_one_byte_lengths(length: int) -> None:
    # A float tensor of unknown shape encodes as a 6-byte type field: entries of names of 120
    # bytes are 128 bytes long, the first length that takes two bytes.
    model = ModelProto(ir_version=10)
    model.opset_import.add(domain="", version=21)
    model.graph.input.add(name="x").type.tensor_type.elem_type = 1
    name = "n" * length
    model.graph.node.add(op_type="Identity", input=["x"], output=[name])
    model.graph.node.add(op_type="Identity", input=[name], output=["y"])
    model.graph.output.add(name="y")
    written = oc.infer_shapes(model.SerializeToString())
    read_back = ModelProto.FromString(written.SerializeToString()).graph.value_info
    assert [(v.name, v.type.tensor_type.elem_type) for v in read_back] == [(name, 1)]


_dims = st.one_of(
    st.integers(0, 5000),
    st.integers(0, 2**63 - 1),
    st.sampled_from(["N", "", "batch" * 30, "é", "\ud800"]),  # (non-ASCII: the message's)
    st.none(),
)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.none(), st.sampled_from(list(oc.ElementType))),
    st.one_of(st.none(), st.lists(_dims, max_size=6).map(tuple)),
)
def test_tensor_types_encoded_as_the_message_encodes_them(elem: Any, shape: Any) -> None:
    """The writer encodes a tensor type straight from its parts, nothing kept between calls:
    the bytes of the message type_to_proto fills, or (a dim it does not encode itself) the
    message's own."""
    value = Tensor.__new__(Tensor)  # (any dims, as a rule might make them)
    object.__setattr__(value, "elem_type", elem)
    object.__setattr__(value, "shape", shape)
    message = TypeProto()
    try:
        type_to_proto(value, message)
        expected: Any = message.SerializeToString()
    except (UnicodeError, ValueError) as exc:
        expected = type(exc)
    direct = _tensor_type_encoding(value)
    if direct is not None:
        assert direct == expected
        assert TypeProto.FromString(direct) == message
    try:
        got: Any = _type_encoding(value)
    except (UnicodeError, ValueError) as exc:
        got = type(exc)
    assert got == expected


def test_the_dim_entries_made_at_import_are_the_encoder_s() -> None:
    assert list(_DIM_ENTRIES) == list(range(4096))
    for dim, entry in _DIM_ENTRIES.items():
        assert entry == _dim_entry(dim)
        message = TypeProto()
        message.tensor_type.shape.dim.add(dim_value=dim)
        assert message.tensor_type.shape.SerializeToString() == entry
