"""The float64 twin of a model: every float input, output, initializer, constant and Cast
target widened to double, so that running it shows what the model computes without float32
(float16, bfloat16) rounding.

Widened: tensor types of graph inputs, outputs and value_info (inside sequences, optionals and
maps too); initializers; tensor attributes (``Constant``'s ``value``, ``ConstantOfShape``'s
``value``); ``Constant``'s ``value_float``/``value_floats`` (turned into a double ``value``);
the element-type attributes ``to`` (Cast) and ``dtype`` (EyeLike, the Random operators);
subgraphs and model-local functions alike. The 8-, 6- and 4-bit float formats are storage
formats of quantized models and stay as they are.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import ElementType
from onnxcraft.numerics import to_float32
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType

__all__ = ["WIDENED_TYPES", "widen_model", "widen_value"]

WIDENED_TYPES = frozenset({ElementType.FLOAT, ElementType.FLOAT16, ElementType.BFLOAT16})
_TYPE_ATTRIBUTES = {"to", "dtype"}
# Operators that reinterpret bits rather than convert values: no float64 twin exists (the run
# of the widened model refuses the widths, and compare says so).
_SAME_BITS = {"BitCast"}


def widen_value(value: Any) -> Any:
    """A feed (array, list, dict) with its float arrays as float64."""
    if isinstance(value, np.ndarray):
        if value.dtype.names is not None and value.dtype.names[0] == "bfloat16":
            return to_float32(value).astype(np.float64)
        if value.dtype in (np.float32, np.float16):
            return value.astype(np.float64)
        return value
    if isinstance(value, np.generic):
        return widen_value(np.asarray(value))
    if isinstance(value, list):
        return [widen_value(v) for v in value]
    if isinstance(value, dict):
        return {k: widen_value(v) for k, v in value.items()}
    return value


def _type(value: ValueType | None) -> ValueType | None:
    if isinstance(value, Tensor) and value.elem_type in WIDENED_TYPES:
        return Tensor(ElementType.DOUBLE, value.shape)
    if isinstance(value, SparseTensor) and value.elem_type in WIDENED_TYPES:
        return SparseTensor(ElementType.DOUBLE, value.shape)
    if isinstance(value, Sequence):
        return Sequence(_type(value.elem))
    if isinstance(value, Optional):
        return Optional(_type(value.elem))
    if isinstance(value, Map):
        return Map(value.key, _type(value.value))
    return value


def _infos(infos: list[ir.ValueInfo]) -> list[ir.ValueInfo]:
    return [replace(info, type=_type(info.type)) for info in infos]


def _tensor(data: ir.TensorData) -> ir.TensorData:
    if data.elem_type not in WIDENED_TYPES:
        return data
    wide = widen_value(data.array())
    return ir.TensorData.from_array(data.name, np.asarray(wide), ElementType.DOUBLE)


def _attribute(attr: ir.Attribute, op_type: str) -> ir.Attribute:
    value = attr.value
    if attr.type == "TENSOR" and isinstance(value, ir.TensorData):
        return replace(attr, value=_tensor(value))
    if attr.type == "SPARSE_TENSOR" and isinstance(value, ir.SparseData):
        return replace(attr, value=replace(value, values=_tensor(value.values)))
    if (
        attr.type == "INT"
        and attr.name in _TYPE_ATTRIBUTES
        and value in WIDENED_TYPES
        and op_type not in _SAME_BITS
    ):
        return replace(attr, value=int(ElementType.DOUBLE))
    if attr.type == "GRAPH" and isinstance(value, ir.Graph):
        return replace(attr, value=_graph(value))
    if attr.type == "GRAPHS" and isinstance(value, list):
        return replace(attr, value=[_graph(g) for g in value])
    if op_type == "Constant" and attr.name in ("value_float", "value_floats") and not attr.ref:
        array = np.asarray(value, dtype=np.float64)
        return ir.Attribute(
            "value", "TENSOR", ir.TensorData.from_array("", array, ElementType.DOUBLE)
        )
    return attr


def _node(node: ir.Node) -> ir.Node:
    if node.domain not in ("", "ai.onnx", "ai.onnx.ml"):
        attributes = [
            replace(a, value=_graph(a.value)) if isinstance(a.value, ir.Graph) else a
            for a in node.attributes
        ]
        return replace(node, attributes=attributes)
    return replace(node, attributes=[_attribute(a, node.op_type) for a in node.attributes])


def _graph(graph: ir.Graph) -> ir.Graph:
    return replace(
        graph,
        nodes=[_node(n) for n in graph.nodes],
        inputs=_infos(graph.inputs),
        outputs=_infos(graph.outputs),
        value_info=_infos(graph.value_info),
        initializers=[_tensor(t) for t in graph.initializers],
        sparse_initializers=[
            replace(s, values=_tensor(s.values)) for s in graph.sparse_initializers
        ],
    )


def widen_model(model: ir.Model) -> ir.Model:
    """A copy of ``model`` computing in float64 (``model`` itself is not changed)."""
    functions = [
        replace(f, nodes=[_node(n) for n in f.nodes], value_info=_infos(f.value_info))
        for f in model.functions
    ]
    return replace(model, graph=_graph(model.graph), functions=functions)
