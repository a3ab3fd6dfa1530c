"""The ONNX message classes (onnxcraft's own bindings of proto/onnx.proto).

    from onnxcraft.proto import ModelProto, TensorProto

They are wire-compatible with the ``onnx`` package's classes (same field numbers and types) and
live under the package name ``onnxcraft`` in protobuf's descriptor pool, so both load in one
process. Convert between them by bytes: ``ModelProto.FromString(onnx_model.SerializeToString())``.
"""

from __future__ import annotations

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
