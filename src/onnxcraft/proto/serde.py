"""Converting between onnxcraft's IR (:mod:`onnxcraft.ir`) and the protobuf messages.

This is the one place, with ``io`` and the tensor conversion, that reads or writes protobuf
fields. Reading keeps tensor data lazy: a tensor is decoded only when someone asks for its
array, and an untouched tensor is written back from its original message, bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any, Literal

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import OnnxcraftError, ProtoError, ValidationError
from onnxcraft.proto import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
    TypeProto,
    ValueInfoProto,
)
from onnxcraft.proto.external_data import external_range
from onnxcraft.proto.payload import (
    attribute_storage_problem,
    external_size_problem,
    tensor_storage_problem,
)
from onnxcraft.proto.tensor import mapped_array, to_array, write_array
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType, shared_tensor

__all__ = [
    "as_ir",
    "with_inferred_types",
    "model_to_proto",
    "model_from_proto",
    "type_to_proto",
    "type_from_proto",
    "as_model_proto",
]

_ATTR_TYPES = {name: AttributeProto.AttributeType.Value(name) for name in ir.ATTRIBUTE_TYPES}
_ATTR_NAMES = {v: k for k, v in _ATTR_TYPES.items()}


def as_model_proto(model: Any, *, what: str = "model") -> ModelProto:
    """onnxcraft's ModelProto as is; an IR model converted; anything else with
    SerializeToString() via its bytes."""
    if isinstance(model, ModelProto):
        return model
    if isinstance(model, ir.Model):
        return model_to_proto(model)
    serialize = getattr(model, "SerializeToString", None)
    if serialize is None:
        raise ProtoError(
            f"{what}: expected a ModelProto (onnxcraft's or onnx's) or an onnxcraft.ir.Model, "
            f"got {type(model).__name__}"
        )
    is_message = _refuse_other_messages(model, what)
    data = serialize()
    result = ModelProto()
    try:
        result.ParseFromString(data)
    except Exception as exc:  # protobuf's DecodeError and friends
        raise ProtoError(
            f"{what}: cannot read {type(model).__name__} as a ModelProto: {exc}"
        ) from exc
    if data and not is_message and not result.HasField("graph"):
        # Protobuf skips fields it does not know, so the bytes of another message parse as a
        # model with nothing in it; a model has a graph (onnx's checker requires one).
        raise ProtoError(
            f"{what}: expected a ModelProto, got a {type(model).__name__} whose bytes hold no "
            f"graph: it is not a model"
        )
    return result


def _refuse_other_messages(model: Any, what: str) -> bool:
    """Refuse a protobuf message of another type (a GraphProto, a ValueInfoProto ...) by its
    type name: whatever package compiled onnx.proto, a model's type is ``ModelProto``. True
    for a ModelProto message, False for an object that is no protobuf message."""
    descriptor = getattr(model, "DESCRIPTOR", None)
    full_name = getattr(descriptor, "full_name", None)
    if not isinstance(full_name, str):
        return False
    if full_name.rsplit(".", 1)[-1] != "ModelProto":
        hint = " (make a model of it first)" if full_name.endswith("GraphProto") else ""
        raise ProtoError(f"{what}: expected a ModelProto, got a message of type {full_name}{hint}")
    return True


# -- types ----------------------------------------------------------------------------------------


def type_to_proto(value: ValueType | None, out: TypeProto) -> None:
    if value is None:
        return
    if isinstance(value, (Tensor, SparseTensor)):
        target = out.tensor_type if isinstance(value, Tensor) else out.sparse_tensor_type
        target.elem_type = int(value.elem_type or 0)
        if value.shape is not None:
            shape = target.shape
            shape.SetInParent()
            for dim in value.shape:
                d = shape.dim.add()
                if isinstance(dim, int):
                    d.dim_value = dim
                elif isinstance(dim, str):
                    d.dim_param = dim
    elif isinstance(value, Sequence):
        out.sequence_type.SetInParent()
        type_to_proto(value.elem, out.sequence_type.elem_type)
    elif isinstance(value, Optional):
        out.optional_type.SetInParent()
        type_to_proto(value.elem, out.optional_type.elem_type)
    elif isinstance(value, Map):
        out.map_type.key_type = int(value.key)
        type_to_proto(value.value, out.map_type.value_type)


def _shape_from_proto(target: Any) -> tuple[int | str | None, ...] | None:
    if not target.HasField("shape"):
        return None
    dims: list[int | str | None] = []
    for d in target.shape.dim:
        value = d.dim_value
        if value > 0:  # (the common case: only the oneof's dim_value is non-zero)
            dims.append(value)
            continue
        which = d.WhichOneof("value")
        if which == "dim_value":
            if value < 0:
                # Not a shape the IR can hold: reported as the model breaking the IR rules.
                raise ValidationError(
                    [f"a type: [proto] its shape has the dimension {value}; dims are >= 0"]
                )
            dims.append(0)
        elif which == "dim_param":
            dims.append(d.dim_param or None)
        else:
            dims.append(None)
    return tuple(dims)


_ELEMENTS = {int(e): e for e in ElementType if e != ElementType.UNDEFINED}


def _elem(value: int) -> ElementType | None:
    return _ELEMENTS.get(value)


def type_from_proto(proto: TypeProto) -> ValueType | None:
    which = proto.WhichOneof("value")
    if which == "tensor_type":
        t = proto.tensor_type
        # (its parts valid as read: an element type or None, dims >= 0, symbols or None)
        return shared_tensor(_ELEMENTS.get(t.elem_type), _shape_from_proto(t))
    if which == "sparse_tensor_type":
        sparse = proto.sparse_tensor_type
        return SparseTensor(_elem(sparse.elem_type), _shape_from_proto(sparse))
    if which == "sequence_type":
        inner = proto.sequence_type
        return Sequence(type_from_proto(inner.elem_type) if inner.HasField("elem_type") else None)
    if which == "optional_type":
        optional = proto.optional_type
        elem = optional.elem_type if optional.HasField("elem_type") else None
        return Optional(None if elem is None else type_from_proto(elem))
    if which == "map_type":
        m = proto.map_type
        key = _elem(m.key_type)
        if key is None:
            return None
        return Map(key, type_from_proto(m.value_type) if m.HasField("value_type") else None)
    return None


# -- IR -> proto ----------------------------------------------------------------------------------


def _tensor_to_proto(data: ir.TensorData, out: TensorProto) -> None:
    # A tensor read from a message is immutable here: write the original back, bit for bit.
    if data.source is not None:
        out.CopyFrom(data.source)
        if data.name:
            out.name = data.name
        return
    write_array(out, data.array(), data.name or None, elem_type=data.elem_type)
    if data.doc_string:
        out.doc_string = data.doc_string
    if data.metadata:
        _metadata_to_proto(data.metadata, out.metadata_props)


# TypeProtos of the value types written lately: a model's values share a few types (a chain's
# every value is float[N, 16]), and copying a made message is a quarter of making it anew.
_TYPE_PROTOS: dict[ValueType, TypeProto] = {}
_TYPE_PROTOS_KEPT = 4096


def _type_proto_of(value: ValueType) -> TypeProto:
    found = _TYPE_PROTOS.get(value)
    if found is None:
        if len(_TYPE_PROTOS) >= _TYPE_PROTOS_KEPT:
            _TYPE_PROTOS.clear()
        found = _TYPE_PROTOS[value] = TypeProto()
        type_to_proto(value, found)
    return found


def _value_info_to_proto(info: ir.ValueInfo, out: ValueInfoProto) -> None:
    out.name = info.name
    if info.type is not None:
        out.type.CopyFrom(_type_proto_of(info.type))
    if info.doc_string:
        out.doc_string = info.doc_string
    _metadata_to_proto(info.metadata, out.metadata_props)


def _metadata_to_proto(metadata: Mapping[str, str], out: Any) -> None:
    for key, value in metadata.items():
        out.append(StringStringEntryProto(key=key, value=value))


def _attribute_to_proto(attr: ir.Attribute, out: AttributeProto) -> None:
    out.name = attr.name
    out.type = _ATTR_TYPES[attr.type]
    if attr.doc_string:
        out.doc_string = attr.doc_string
    if attr.ref:
        out.ref_attr_name = attr.ref
        return
    value = attr.value
    kind = attr.type
    if kind == "FLOAT":
        out.f = float(value)
    elif kind == "INT":
        out.i = int(value)
    elif kind == "STRING":
        out.s = value if isinstance(value, bytes) else str(value).encode("utf-8")
    elif kind == "TENSOR":
        _tensor_to_proto(value, out.t)
    elif kind == "GRAPH":
        _graph_to_proto(value, out.g)
    elif kind == "SPARSE_TENSOR":
        _sparse_to_proto(value, out.sparse_tensor)
    elif kind == "TYPE_PROTO":
        type_to_proto(value, out.tp)
    elif kind == "FLOATS":
        out.floats.extend(float(v) for v in value)
    elif kind == "INTS":
        out.ints.extend(int(v) for v in value)
    elif kind == "STRINGS":
        out.strings.extend(v if isinstance(v, bytes) else str(v).encode("utf-8") for v in value)
    elif kind == "TENSORS":
        for item in value:
            _tensor_to_proto(item, out.tensors.add())
    elif kind == "GRAPHS":
        for item in value:
            _graph_to_proto(item, out.graphs.add())
    elif kind == "SPARSE_TENSORS":
        for item in value:
            _sparse_to_proto(item, out.sparse_tensors.add())
    elif kind == "TYPE_PROTOS":
        for item in value:
            type_to_proto(item, out.type_protos.add())


def _sparse_to_proto(data: ir.SparseData, out: SparseTensorProto) -> None:
    _tensor_to_proto(data.values, out.values)
    _tensor_to_proto(data.indices, out.indices)
    out.dims.extend(data.dims)


def _nodes_to_proto(nodes: Iterable[ir.Node], out: Any) -> None:
    for node in nodes:
        proto = out.add()
        proto.op_type = node.op_type
        proto.input.extend(node.inputs)
        proto.output.extend(node.outputs)
        if node.name:
            proto.name = node.name
        if node.domain:
            proto.domain = node.domain
        if node.overload:
            proto.overload = node.overload
        if node.doc_string:
            proto.doc_string = node.doc_string
        if node.attributes:  # most nodes have none: no repeated field looked up for them
            attribute = proto.attribute
            for attr in node.attributes:
                _attribute_to_proto(attr, attribute.add())
        if node.metadata:
            _metadata_to_proto(node.metadata, proto.metadata_props)


def _graph_to_proto(graph: ir.Graph, out: GraphProto) -> None:
    out.name = graph.name
    if graph.doc_string:
        out.doc_string = graph.doc_string
    _nodes_to_proto(graph.nodes, out.node)
    for info in graph.inputs:
        _value_info_to_proto(info, out.input.add())
    for info in graph.outputs:
        _value_info_to_proto(info, out.output.add())
    for info in graph.value_info:
        _value_info_to_proto(info, out.value_info.add())
    for tensor in graph.initializers:
        _tensor_to_proto(tensor, out.initializer.add())
    for sparse in graph.sparse_initializers:
        _sparse_to_proto(sparse, out.sparse_initializer.add())
    _metadata_to_proto(graph.metadata, out.metadata_props)


def _function_to_proto(function: ir.Function, out: FunctionProto) -> None:
    out.domain = function.domain
    out.name = function.name
    out.input.extend(function.inputs)
    out.output.extend(function.outputs)
    out.attribute.extend(function.attributes)
    for attr in function.attribute_defaults:
        _attribute_to_proto(attr, out.attribute_proto.add())
    _nodes_to_proto(function.nodes, out.node)
    for domain, version in function.opset_imports.items():
        out.opset_import.append(OperatorSetIdProto(domain=domain, version=version))
    for info in function.value_info:
        _value_info_to_proto(info, out.value_info.add())
    if function.overload:
        out.overload = function.overload
    if function.doc_string:
        out.doc_string = function.doc_string
    _metadata_to_proto(function.metadata, out.metadata_props)


def with_inferred_types(original: Any, model: ir.Model) -> ModelProto | None:
    """A copy of ``original`` whose graphs carry the types recorded in ``model``.

    ``model`` must have been read from ``original`` with :func:`model_from_proto` and changed
    only in value types: graph inputs, outputs and value_info are rewritten, everything else is
    copied as it is (far cheaper than writing the whole model anew, and bit-exact). Returns None
    when the two do not line up, so the caller can write the model instead.
    """
    out = ModelProto()
    out.CopyFrom(as_model_proto(original))
    return out if _retype_graph(model.graph, out.graph) else None


def _retype_graph(graph: ir.Graph, out: GraphProto) -> bool:
    if (
        len(graph.nodes) != len(out.node)
        or len(graph.inputs) != len(out.input)
        or len(graph.outputs) != len(out.output)
    ):
        return False
    for info, proto in zip(graph.inputs, out.input):
        _retype(info, proto)
    for info, proto in zip(graph.outputs, out.output):
        _retype(info, proto)
    del out.value_info[:]
    for info in graph.value_info:
        _value_info_to_proto(info, out.value_info.add())
    for node, node_proto in zip(graph.nodes, out.node):
        if node.op_type != node_proto.op_type:
            return False
        for attr in node.attributes:
            if attr.type not in ("GRAPH", "GRAPHS") or attr.ref:
                continue
            attr_proto = next((a for a in node_proto.attribute if a.name == attr.name), None)
            if attr_proto is None:
                return False
            if attr.type == "GRAPH" and not _retype_graph(attr.value, attr_proto.g):
                return False
            if attr.type == "GRAPHS":
                if len(attr.value) != len(attr_proto.graphs):
                    return False
                for body, body_proto in zip(attr.value, attr_proto.graphs):
                    if not _retype_graph(body, body_proto):
                        return False
    return True


def _retype(info: ir.ValueInfo, out: ValueInfoProto) -> None:
    out.ClearField("type")
    if info.type is not None:
        type_to_proto(info.type, out.type)


def model_to_proto(model: ir.Model) -> ModelProto:
    out = ModelProto()
    out.ir_version = model.ir_version
    for domain, version in model.opset_imports.items():
        out.opset_import.append(OperatorSetIdProto(domain=domain, version=version))
    if model.producer_name:
        out.producer_name = model.producer_name
    if model.producer_version:
        out.producer_version = model.producer_version
    if model.domain:
        out.domain = model.domain
    if model.model_version:
        out.model_version = model.model_version
    if model.doc_string:
        out.doc_string = model.doc_string
    _metadata_to_proto(model.metadata, out.metadata_props)
    _graph_to_proto(model.graph, out.graph)
    for function in model.functions:
        _function_to_proto(function, out.functions.add())
    return out


# -- proto -> IR ----------------------------------------------------------------------------------


def _load_tensor(proto: TensorProto, base_dir: Path | None) -> np.ndarray:
    return to_array(proto, base_dir=base_dir)


class _Reader:
    def __init__(self, base_dir: Path | None, map_external: bool = False) -> None:
        self.base_dir = base_dir
        self.map_external = map_external and base_dir is not None

    def tensor(self, proto: TensorProto) -> ir.TensorData:
        if self.map_external and proto.data_location == TensorProto.EXTERNAL:
            return self._mapped_tensor(proto)
        # Models hold many tensors: this stays lean (no closure, dims copied in one call).
        data = ir.TensorData(
            proto.name,
            _ELEMENTS.get(proto.data_type, ElementType.UNDEFINED),
            tuple(proto.dims),
            load=partial(_load_tensor, proto, self.base_dir),
            source=proto,
            doc_string=proto.doc_string,
        )
        data.judge_storage(partial(tensor_storage_problem, proto))
        return data

    def _mapped_tensor(self, proto: TensorProto) -> ir.TensorData:
        """A tensor whose external data is mapped from its file on first use. It keeps no
        reference to the file's location: written anywhere, it carries its data."""
        assert self.base_dir is not None
        # An unsafe or out-of-range location fails now; a size that contradicts the dims is
        # noted for oc.check (and fails when the data is used).
        where = external_range(proto, self.base_dir)
        data = ir.TensorData(
            proto.name,
            _ELEMENTS.get(proto.data_type, ElementType.UNDEFINED),
            tuple(proto.dims),
            load=partial(mapped_array, proto, self.base_dir),
            doc_string=proto.doc_string,
            metadata={e.key: e.value for e in proto.metadata_props},
        )
        data.malformed = external_size_problem(proto, where.length)
        return data

    def sparse(self, proto: SparseTensorProto) -> ir.SparseData:
        return ir.SparseData(
            self.tensor(proto.values), self.tensor(proto.indices), tuple(int(d) for d in proto.dims)
        )

    def attribute(self, proto: AttributeProto) -> ir.Attribute:
        kind = _ATTR_NAMES.get(proto.type)
        if kind is None:
            kind = _guess_attribute_type(proto)
        attr = ir.Attribute(proto.name, kind, None, proto.ref_attr_name, proto.doc_string)
        attr.judge_storage(partial(attribute_storage_problem, proto))
        if proto.ref_attr_name:
            return attr
        if kind == "FLOAT":
            attr.value = float(proto.f)
        elif kind == "INT":
            attr.value = int(proto.i)
        elif kind == "STRING":
            attr.value = _decode(proto.s)
        elif kind == "TENSOR":
            attr.value = self.tensor(proto.t)
        elif kind == "GRAPH":
            attr.value = self.graph(proto.g)
        elif kind == "SPARSE_TENSOR":
            attr.value = self.sparse(proto.sparse_tensor)
        elif kind == "TYPE_PROTO":
            attr.value = type_from_proto(proto.tp)
        elif kind == "FLOATS":
            attr.value = [float(v) for v in proto.floats]
        elif kind == "INTS":
            attr.value = [int(v) for v in proto.ints]
        elif kind == "STRINGS":
            attr.value = [_decode(v) for v in proto.strings]
        elif kind == "TENSORS":
            attr.value = [self.tensor(t) for t in proto.tensors]
        elif kind == "GRAPHS":
            attr.value = [self.graph(g) for g in proto.graphs]
        elif kind == "SPARSE_TENSORS":
            attr.value = [self.sparse(s) for s in proto.sparse_tensors]
        elif kind == "TYPE_PROTOS":
            attr.value = [type_from_proto(t) for t in proto.type_protos]
        return attr

    def node(self, proto: NodeProto) -> ir.Node:
        # Read for every node of large models: empty repeated fields are not iterated.
        attributes, metadata, domain = proto.attribute, proto.metadata_props, proto.domain
        return ir.Node(
            proto.op_type,
            list(proto.input),
            list(proto.output),
            "" if domain == "ai.onnx" else domain,
            proto.name,
            [self.attribute(a) for a in attributes] if attributes else [],
            proto.doc_string,
            proto.overload,
            {e.key: e.value for e in metadata} if metadata else {},
        )

    def value_info(self, proto: ValueInfoProto) -> ir.ValueInfo:
        value_type = type_from_proto(proto.type) if proto.HasField("type") else None
        return ir.ValueInfo(
            proto.name, value_type, proto.doc_string, {e.key: e.value for e in proto.metadata_props}
        )

    def graph(self, proto: GraphProto) -> ir.Graph:
        return ir.Graph(
            name=proto.name,
            nodes=[self.node(n) for n in proto.node],
            inputs=[self.value_info(v) for v in proto.input],
            outputs=[self.value_info(v) for v in proto.output],
            initializers=[self.tensor(t) for t in proto.initializer],
            sparse_initializers=[self.sparse(s) for s in proto.sparse_initializer],
            value_info=[self.value_info(v) for v in proto.value_info],
            doc_string=proto.doc_string,
            metadata={e.key: e.value for e in proto.metadata_props},
        )

    def function(self, proto: FunctionProto) -> ir.Function:
        return ir.Function(
            domain=proto.domain,
            name=proto.name,
            inputs=list(proto.input),
            outputs=list(proto.output),
            nodes=[self.node(n) for n in proto.node],
            attributes=list(proto.attribute),
            attribute_defaults=[self.attribute(a) for a in proto.attribute_proto],
            opset_imports={_domain(o.domain): int(o.version) for o in proto.opset_import},
            value_info=[self.value_info(v) for v in proto.value_info],
            overload=proto.overload,
            doc_string=proto.doc_string,
            metadata={e.key: e.value for e in proto.metadata_props},
        )


def _domain(domain: str) -> str:
    return "" if domain == "ai.onnx" else domain


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="surrogateescape")


def _guess_attribute_type(proto: AttributeProto) -> str:
    """Very old models leave AttributeProto.type unset: read it from the field that is set."""
    singular: tuple[tuple[Literal["f", "i", "s", "t", "g", "tp"], str], ...] = (
        ("f", "FLOAT"),
        ("i", "INT"),
        ("s", "STRING"),
        ("t", "TENSOR"),
        ("g", "GRAPH"),
        ("tp", "TYPE_PROTO"),
    )
    for field, kind in singular:
        if proto.HasField(field):
            return kind
    for repeated, kind in (
        ("floats", "FLOATS"),
        ("ints", "INTS"),
        ("strings", "STRINGS"),
        ("tensors", "TENSORS"),
        ("graphs", "GRAPHS"),
    ):
        if len(getattr(proto, repeated)):
            return kind
    return "UNDEFINED"


def as_ir(model: Any, *, what: str = "model") -> ir.Model:
    """An IR model as is; any ModelProto (onnxcraft's or onnx's) read into the IR."""
    if isinstance(model, ir.Model):
        return model
    return model_from_proto(as_model_proto(model, what=what))


def model_from_proto(
    model: Any, *, base_dir: str | Path | None = None, map_external: bool = False
) -> ir.Model:
    """Read any ModelProto (onnxcraft's or onnx's) into the IR; tensors stay lazy.

    ``map_external=True`` (with ``base_dir``) maps external data from its files instead of
    keeping references to them (see :func:`onnxcraft.io.load_ir`).
    """
    proto = as_model_proto(model)
    reader = _Reader(Path(base_dir) if base_dir is not None else None, map_external)
    return ir.Model(
        graph=reader.graph(proto.graph),
        opset_imports={_domain(o.domain): int(o.version) for o in proto.opset_import},
        ir_version=int(proto.ir_version),
        producer_name=proto.producer_name,
        producer_version=proto.producer_version,
        domain=proto.domain,
        model_version=int(proto.model_version),
        doc_string=proto.doc_string,
        metadata={e.key: e.value for e in proto.metadata_props},
        functions=[reader.function(f) for f in proto.functions],
    )


def _encode(model: ir.Model) -> bytes:
    return bytes(model_to_proto(model).SerializeToString())


ir.register_encoder(_encode)


_protobuf_text = ModelProto.__str__


def _model_text(model: ModelProto) -> str:
    try:
        return str(model_from_proto(model))
    except OnnxcraftError:  # a model the IR cannot hold: what protobuf shows of it
        return str(_protobuf_text(model))


# str() of onnxcraft's ModelProto (what oc.build returns) is the model's text form, as str()
# of the IR model is (the printer the text package registers), rather than protobuf's field
# dump, which spells out every weight; repr() stays protobuf's.
setattr(ModelProto, "__str__", _model_text)  # noqa: B010  (a class of generated bindings)
