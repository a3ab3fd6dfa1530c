"""What "the same model" means for the text form: a canonical value of a model to compare.

Two models are equal when their normal forms are. The normal form is read from the model's
bytes through onnxcraft's IR and keeps every field the ONNX text syntax can write:

- the header (ir_version, opset imports, producer, domain, model_version, doc_string and
  metadata_props), graphs (name, typed inputs/outputs, value_info, nodes), nodes (name,
  domain, op_type, overload, inputs, outputs, attributes with their types and references),
  functions (domain, name, overload, opset imports, attributes and defaults, typed values,
  doc_string);
- tensors by name, element type, dims and value, not by how they are stored: raw_data and
  the typed fields holding the same elements are the same tensor (onnx's parser writes typed
  fields, onnxcraft's writer raw_data). NaNs compare by sign only: the syntax writes ``nan``
  and ``-nan``, not payloads;
- float attributes by their float32 value.

Left out, because the syntax has no place for them (neither onnx's printer nor onnxcraft's
writes them): the doc strings of graphs, nodes, attributes, values and tensors, and the
metadata_props of graphs, nodes, values, tensors and functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import ElementType, storage_dtype
from onnxcraft.proto.serde import model_from_proto


def normal_form(model: Any) -> Any:
    """The normal form of any model (bytes, a ModelProto of either package, an IR model)."""
    data = model if isinstance(model, bytes) else model.SerializeToString()
    return _model(model_from_proto(_proto(data)))


def _proto(data: bytes) -> Any:
    from onnxcraft.proto import ModelProto

    proto = ModelProto()
    proto.ParseFromString(data)
    return proto


def _model(model: ir.Model) -> Any:
    return {
        "ir_version": model.ir_version,
        "opset_import": sorted(model.opset_imports.items()),
        "producer_name": model.producer_name,
        "producer_version": model.producer_version,
        "domain": model.domain,
        "model_version": model.model_version,
        "doc_string": model.doc_string,
        "metadata_props": sorted(model.metadata.items()),
        "graph": _graph(model.graph),
        "functions": [_function(f) for f in model.functions],
    }


def _value_info(info: ir.ValueInfo) -> Any:
    return (info.name, info.type)


def _graph(graph: ir.Graph) -> Any:
    return {
        "name": graph.name,
        "inputs": [_value_info(v) for v in graph.inputs],
        "outputs": [_value_info(v) for v in graph.outputs],
        "initializers": [_tensor(t) for t in graph.initializers],
        "sparse_initializers": [_sparse(s) for s in graph.sparse_initializers],
        "value_info": [_value_info(v) for v in graph.value_info],
        "nodes": [_node(n) for n in graph.nodes],
    }


def _node(node: ir.Node) -> Any:
    return {
        "name": node.name,
        "op": (node.domain, node.op_type, node.overload),
        "inputs": list(node.inputs),
        "outputs": list(node.outputs),
        "attributes": [_attribute(a) for a in node.attributes],
    }


def _function(function: ir.Function) -> Any:
    return {
        "key": (function.domain, function.name, function.overload),
        "opset_import": sorted(function.opset_imports.items()),
        "inputs": list(function.inputs),
        "outputs": list(function.outputs),
        "attributes": list(function.attributes),
        "attribute_defaults": [_attribute(a) for a in function.attribute_defaults],
        "value_info": [_value_info(v) for v in function.value_info],
        "doc_string": function.doc_string,
        "nodes": [_node(n) for n in function.nodes],
    }


def _attribute(attr: ir.Attribute) -> Any:
    if attr.ref:
        return (attr.name, attr.type, "@" + attr.ref)
    return (attr.name, attr.type, _attribute_value(attr.type, attr.value))


def _attribute_value(kind: str, value: Any) -> Any:
    if kind == "FLOAT":
        return np.float32(value).tobytes()
    if kind == "TENSOR":
        return _tensor(value)
    if kind == "GRAPH":
        return _graph(value)
    if kind == "SPARSE_TENSOR":
        return _sparse(value)
    if kind.endswith("S") and isinstance(value, list):
        return [_attribute_value(kind[:-1], v) for v in value]
    return value


def _sparse(data: ir.SparseData) -> Any:
    return (_tensor(data.values), _tensor(data.indices), tuple(data.dims))


def _tensor(data: ir.TensorData) -> Any:
    array = data.array()
    elem = ElementType(data.elem_type)
    if elem == ElementType.STRING:
        values: Any = tuple(
            v if isinstance(v, bytes) else str(v).encode("utf-8", "surrogateescape")
            for v in array.reshape(-1).tolist()
        )
    else:
        flat = array.reshape(-1)
        if flat.dtype.kind in "fc":
            parts = (
                flat.view(np.float32 if flat.dtype in (np.float32, np.complex64) else np.float64)
                if flat.dtype.kind == "c"
                else flat
            )
            parts = np.where(np.isnan(parts), np.copysign(np.nan, parts), parts).astype(parts.dtype)
            flat = parts
        elif flat.dtype.names:
            flat = flat.view(storage_dtype(elem))
        values = flat.tobytes()
    return (data.name, elem, tuple(data.dims), values)
