"""The inference reader reads each distinct value type once, by its encoding (issue 17): a
model inferred before carries a value_info entry for every value. The types read are the
general reader's, equal encodings give one object, and a model with its value_info infers
as the plain walk does.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.errors import ValidationError
from onnxcraft.proto import ModelProto, TypeProto, ValueInfoProto
from onnxcraft.proto.inference import read_for_inference
from onnxcraft.proto.serde import model_from_proto
from tests.infer.test_fast_paths import assert_same

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import zoo


@st.composite
def _type(draw: st.DrawFn, depth: int = 0) -> TypeProto:
    proto = TypeProto()
    kind = draw(st.sampled_from(["tensor", "sparse", "sequence", "optional", "map", "none"]
                                if depth < 2 else ["tensor", "none"]))  # fmt: skip
    if kind in ("tensor", "sparse"):
        target = proto.tensor_type if kind == "tensor" else proto.sparse_tensor_type
        target.elem_type = draw(st.sampled_from([0, 1, 7, 9, 16, 99]))
        if draw(st.booleans()):
            shape = target.shape  # (set, even with no dims: a scalar)
            shape.SetInParent()
            for dim in draw(st.lists(st.sampled_from([0, 3, "N", "", None]), max_size=3)):
                entry = shape.dim.add()
                if isinstance(dim, int):
                    entry.dim_value = dim
                elif isinstance(dim, str):
                    entry.dim_param = dim
                if draw(st.booleans()):
                    entry.denotation = "DATA_BATCH"
    elif kind == "sequence":
        proto.sequence_type.elem_type.CopyFrom(draw(_type(depth + 1)))
    elif kind == "optional":
        proto.optional_type.SetInParent()
        if draw(st.booleans()):
            proto.optional_type.elem_type.CopyFrom(draw(_type(depth + 1)))
    elif kind == "map":
        proto.map_type.key_type = draw(st.sampled_from([0, 7, 8]))
        proto.map_type.value_type.CopyFrom(draw(_type(depth + 1)))
    if draw(st.booleans()):
        proto.denotation = "TENSOR"
    return proto


def _model(types: list[TypeProto | None], doc: list[bool]) -> bytes:
    model = ModelProto(ir_version=10)
    model.opset_import.add(domain="", version=21)
    for i, (value_type, documented) in enumerate(zip(types, doc)):
        info = model.graph.value_info.add(name=f"v{i}")
        if value_type is not None:
            info.type.CopyFrom(value_type)
        if documented:
            info.doc_string = "a value"
    return model.SerializeToString()  # type: ignore[no-any-return]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(st.none(), _type()), min_size=1, max_size=6), st.data())
def test_types_read_as_the_general_reader_reads_them(
    types: list[TypeProto | None], data: st.DataObject
) -> None:
    types = types + types[: data.draw(st.integers(0, len(types)))]  # some encodings twice
    doc = data.draw(st.lists(st.booleans(), min_size=len(types), max_size=len(types)))
    encoded = _model(types, doc)
    read = read_for_inference(ModelProto.FromString(encoded), values_up_to=64).model
    general = model_from_proto(ModelProto.FromString(encoded))
    assert [(v.name, v.type, v.doc_string) for v in read.graph.value_info] == [
        (v.name, v.type, v.doc_string) for v in general.graph.value_info
    ]
    infos = read.graph.value_info
    for i, a in enumerate(types):
        for j, b in enumerate(types):
            same = (
                a is not None and b is not None and a.SerializeToString() == b.SerializeToString()
            )
            if same and not doc[i] and not doc[j]:
                assert infos[i].type is infos[j].type  # one object per distinct encoding


def test_a_negative_dim_is_refused_every_time() -> None:
    bad = TypeProto()
    bad.tensor_type.elem_type = 1
    bad.tensor_type.shape.dim.add(dim_value=-1)
    data = _model([bad, bad], [False, False])
    with pytest.raises(ValidationError, match="dimension -1"):
        read_for_inference(ModelProto.FromString(data), values_up_to=64)
    with pytest.raises(ValidationError, match="dimension -1"):
        model_from_proto(ModelProto.FromString(data))
    info = ValueInfoProto(name="x", type=bad)
    model = ModelProto.FromString(data)
    model.graph.input.append(info)
    with pytest.raises(ValidationError, match="dimension -1"):
        read_for_inference(model, values_up_to=64)


@pytest.mark.parametrize("name", ["resnet50", "shufflenet"])
def test_models_inferred_before_infer_as_the_plain_walk(name: str) -> None:
    """The zoo's models with every value's type already written (as inference leaves them),
    their weights external (unwritten) as large models ship."""
    model = oc.proto.ModelProto.FromString(zoo.MODELS[name](1).SerializeToString())
    del model.graph.value_info[:]
    for tensor in model.graph.initializer:
        if len(tensor.raw_data) > 1024:
            tensor.ClearField("raw_data")
            tensor.data_location = oc.proto.TensorProto.EXTERNAL
            tensor.external_data.add(key="location", value="weights.bin")
    inferred = oc.infer_shapes(model)
    assert len(inferred.graph.value_info) > 100
    assert_same(inferred.SerializeToString())
