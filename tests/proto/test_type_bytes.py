"""Tensor types read from a TypeProto's bytes (``proto/type_bytes.py``) are protobuf's.

Drawn TypeProtos, of the common form and of every form the byte reader leaves to protobuf
(denotations, long and negative dims, long symbols, other value kinds, unknown fields, a
field written twice), encoded by protobuf: whenever the byte reader answers, its answer
equals ``type_from_proto`` of the parsed message; it answers for every tensor type of
dim_values, symbols and empty dims that fits its short lengths; and a negative dim still
fails as the reader's ValidationError, never as a wrong type.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft.errors import ValidationError
from onnxcraft.proto import TypeProto
from onnxcraft.proto.inference import _InferenceReader
from onnxcraft.proto.serde import type_from_proto
from onnxcraft.proto.type_bytes import tensor_type_from_bytes

_DIMS = st.one_of(
    st.integers(0, 300),
    st.integers(0, 2**63 - 1),
    st.none(),  # an empty Dimension
    st.text(min_size=0, max_size=3),  # a dim_param ("" is an empty one)
    st.text(min_size=120, max_size=130),  # one too long for a one-byte length
)


@st.composite
def _type_protos(draw: Any) -> tuple[TypeProto, bool]:
    """A TypeProto and whether it is of the byte reader's common form."""
    proto = TypeProto()
    kind = draw(st.sampled_from(["tensor", "tensor", "tensor", "sequence", "sparse"]))
    if kind == "sequence":
        proto.sequence_type.elem_type.tensor_type.elem_type = 1
        return proto, False
    target = proto.tensor_type if kind == "tensor" else proto.sparse_tensor_type
    common = kind == "tensor"
    if draw(st.booleans()):
        target.elem_type = draw(st.integers(0, 200))
        common = common and target.elem_type < 128  # (a one-byte varint)
    else:
        common = False  # (no element type: protobuf's reading)
    if draw(st.booleans()):
        shape = target.shape
        for dim in draw(st.lists(_DIMS, max_size=6)):
            entry = shape.dim.add()
            if isinstance(dim, int):
                entry.dim_value = dim
            elif isinstance(dim, str):
                entry.dim_param = dim
        if draw(st.integers(0, 9)) == 0:
            shape.dim.add().denotation = "DATA_BATCH"
            common = False
        if draw(st.integers(0, 9)) == 0:
            shape.dim.add().dim_value = -draw(st.integers(1, 5))
            common = False
    if draw(st.integers(0, 9)) == 0:
        proto.denotation = "IMAGE"
        common = False
    return proto, common


@settings(deadline=None)  # (microseconds of work: a loaded machine must not fail it)
@given(_type_protos())
def test_tensor_types_from_bytes_are_protobufs(drawn: tuple[TypeProto, bool]) -> None:
    proto, common = drawn
    data = proto.SerializeToString()
    found = tensor_type_from_bytes(data)
    if common and len(data) < 128:
        assert found is not None
    if found is not None:
        assert found == type_from_proto(TypeProto.FromString(data))


@settings(deadline=None)
@given(st.binary(max_size=40))
def test_any_bytes_give_protobufs_answer_or_none(data: bytes) -> None:
    found = tensor_type_from_bytes(data)
    if found is None:
        return
    assert found == type_from_proto(TypeProto.FromString(data))


def test_a_field_twice_is_left_to_protobuf() -> None:
    # A second elem_type after the shape: protobuf keeps the last one.
    proto = TypeProto()
    proto.tensor_type.elem_type = 1
    proto.tensor_type.shape.dim.add().dim_value = 3
    inner = proto.tensor_type.SerializeToString() + b"\x08\x07"
    data = b"\x0a" + bytes([len(inner)]) + inner
    assert tensor_type_from_bytes(data) is None
    assert type_from_proto(TypeProto.FromString(data)).elem_type.value == 7  # type: ignore[union-attr]


def test_a_negative_dim_is_refused_by_the_reader() -> None:
    proto = TypeProto()
    proto.tensor_type.elem_type = 1
    proto.tensor_type.shape.dim.add().dim_value = -2
    data = proto.SerializeToString()
    assert tensor_type_from_bytes(data) is None
    with pytest.raises(ValidationError, match="-2"):
        _InferenceReader()._type_of(data)


def test_a_symbol_not_utf8_is_left_to_protobuf() -> None:
    dim = b"\x12\x02\xff\xfe"  # dim_param of two bytes that are no UTF-8
    shape = b"\x0a" + bytes([len(dim)]) + dim
    inner = b"\x08\x01\x12" + bytes([len(shape)]) + shape
    assert tensor_type_from_bytes(b"\x0a" + bytes([len(inner)]) + inner) is None


def test_a_length_of_two_bytes_is_left_to_protobuf() -> None:
    # A Dimension of 1030 bytes: its length a varint of two bytes, the second 0x08 (the
    # dim_value's tag), which a reader of one-byte lengths would misread.
    proto = TypeProto()
    proto.tensor_type.elem_type = 1
    proto.tensor_type.shape.dim.add().dim_param = "n" * 1027
    data = proto.SerializeToString()
    assert tensor_type_from_bytes(data) is None
    assert type_from_proto(TypeProto.FromString(data)).shape == ("n" * 1027,)  # type: ignore[union-attr]
