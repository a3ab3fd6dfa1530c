"""``io.model_from_bytes``: what ``model_proto`` gives for a model's bytes, errors included
(``oc.infer_shapes`` parses bytes through it)."""

from __future__ import annotations

import pytest

import onnxcraft as oc
from onnxcraft.errors import OnnxcraftError
from onnxcraft.io import model_from_bytes, model_proto
from onnxcraft.proto import ModelProto


def _model() -> bytes:
    model = ModelProto(ir_version=10)
    model.opset_import.add(domain="", version=21)
    model.graph.input.add(name="x").type.tensor_type.elem_type = 1
    model.graph.node.add(op_type="Relu", input=["x"], output=["y"])
    model.graph.output.add(name="y")
    return model.SerializeToString()  # type: ignore[no-any-return]


def test_a_model_reads_alike() -> None:
    data = _model()
    assert model_from_bytes(data) == model_proto(data)


@pytest.mark.parametrize(
    "data", [b"", b"\xff\xff\xff", _model()[:-3], ModelProto().SerializeToString()]
)
def test_bad_bytes_fail_alike(data: bytes) -> None:
    with pytest.raises(OnnxcraftError) as ours:
        model_from_bytes(data)
    with pytest.raises(OnnxcraftError) as theirs:
        model_proto(data)
    assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)
    with pytest.raises(OnnxcraftError) as inferred:
        oc.infer_shapes(data)
    assert str(inferred.value) == str(theirs.value)
