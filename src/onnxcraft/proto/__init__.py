"""The ONNX message classes (onnxcraft's own bindings of proto/onnx.proto).

    from onnxcraft.proto import ModelProto, TensorProto

They are wire-compatible with the ``onnx`` package's classes (same field numbers and types) and
live under the package name ``onnxcraft`` in protobuf's descriptor pool, so both load in one
process. Convert between them by bytes: ``ModelProto.FromString(onnx_model.SerializeToString())``.
"""

from __future__ import annotations

from onnxcraft.ir import picture_of
from onnxcraft.proto.onnx_pb2 import (
    AttributeProto,
    DeviceConfigurationProto,
    FunctionProto,
    GraphProto,
    IntIntListEntryProto,
    MapProto,
    ModelProto,
    NodeDeviceConfigurationProto,
    NodeProto,
    OperatorSetIdProto,
    OperatorStatus,
    OptionalProto,
    SequenceProto,
    ShardedDimProto,
    ShardingSpecProto,
    SimpleShardedDimProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorAnnotation,
    TensorProto,
    TensorShapeProto,
    TrainingInfoProto,
    TypeProto,
    ValueInfoProto,
    Version,
)

__all__ = [
    "AttributeProto",
    "DeviceConfigurationProto",
    "FunctionProto",
    "GraphProto",
    "IntIntListEntryProto",
    "MapProto",
    "ModelProto",
    "NodeDeviceConfigurationProto",
    "NodeProto",
    "OperatorSetIdProto",
    "OperatorStatus",
    "OptionalProto",
    "SequenceProto",
    "ShardedDimProto",
    "ShardingSpecProto",
    "SimpleShardedDimProto",
    "SparseTensorProto",
    "StringStringEntryProto",
    "TensorAnnotation",
    "TensorProto",
    "TensorShapeProto",
    "TrainingInfoProto",
    "TypeProto",
    "ValueInfoProto",
    "Version",
]


# Notebooks show a model as its picture. The class is generated (protobuf's builder makes it),
# so the two display methods are set on it here; they draw through the slot the package root
# fills (onnxcraft.ir.register_picture), since drawing sits layers above this one.
def _repr_svg_(self: ModelProto) -> str | None:
    return picture_of(self, "svg")


def _repr_html_(self: ModelProto) -> str | None:
    return picture_of(self, "html")


setattr(ModelProto, "_repr_svg_", _repr_svg_)  # noqa: B010 - mypy knows no such attribute
setattr(ModelProto, "_repr_html_", _repr_html_)  # noqa: B010 - mypy knows no such attribute
