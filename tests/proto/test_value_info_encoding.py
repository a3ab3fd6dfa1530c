"""The writer's value_info entries (``proto/inference.py``, ``_value_infos_encoding``): the
bytes protobuf gives for the same entries added as messages, whatever the lengths of the
names and types (an entry's head made once per length up to 127 bytes, longer ones in full),
the order kept and each distinct type encoded once."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.proto import GraphProto
from onnxcraft.proto.inference import _value_infos_encoding
from onnxcraft.proto.serde import type_to_proto
from onnxcraft.types import Tensor, shared_tensor

_F32 = oc.ElementType.FLOAT
_TYPES = [
    shared_tensor(_F32, (1, 64, 55, 55)),
    shared_tensor(_F32, None),
    shared_tensor(oc.ElementType.INT64, ("N", 3)),
    shared_tensor(_F32, tuple(range(1, 40))),  # a type field of more than 127 bytes
    Tensor(_F32, (2, 2)),  # equal to the next, another object
    Tensor(_F32, (2, 2)),
]
_NAMES = st.one_of(
    st.text(alphabet="ab_/0", min_size=0, max_size=140),
    st.sampled_from(["é" * 60, "n" * 105, "n" * 106, "n" * 120, "n" * 125]),
)


def _by_messages(added: list[tuple[str, Any]]) -> bytes:
    graph = GraphProto()
    for name, value in added:
        entry = graph.value_info.add(name=name)
        type_to_proto(value, entry.type)
    return graph.SerializeToString()  # type: ignore[no-any-return]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_NAMES, st.sampled_from(_TYPES)), max_size=12))
def test_entries_are_the_messages_bytes(added: list[tuple[str, Any]]) -> None:
    assert _value_infos_encoding([], added) == _by_messages(added)
