"""``oc.infer_shapes``: the rule table applied to a whole model (any ModelProto).

Types flow from the graph inputs and initializers through every node in order; subgraphs and
model-local functions are inferred recursively. A declared type (value_info, graph output)
and an inferred one are merged: what either knows is kept; a contradiction is an
InferenceError with ``strict=True`` and a warning otherwise (the value is then left with what
the declaration says).
"""

from __future__ import annotations

import warnings
from typing import Any

from onnxcraft import ir
from onnxcraft.core.opinfo import OpInfo, custom_op_info, op_info
from onnxcraft.core.types import Optional, Sequence, SparseTensor, Tensor, ValueType
from onnxcraft.errors import InferenceError, OnnxcraftError
from onnxcraft.infer.engine import infer_types

__all__ = ["infer_shapes", "InferenceWarning", "refine"]

_VALUE_LIMIT = 64  # known values are propagated for small tensors only


class InferenceWarning(UserWarning):
    """A declared type contradicts the inferred one (or a rule failed) in non-strict mode."""


def refine(declared: ValueType | None, inferred: ValueType | None, where: str) -> ValueType | None:
    """The type knowing what both know; raises InferenceError when they contradict."""
    if declared is None:
        return inferred
    if inferred is None:
        return declared
    if (isinstance(declared, Tensor) and isinstance(inferred, Tensor)) or (
        isinstance(declared, SparseTensor) and isinstance(inferred, SparseTensor)
    ):
        a, b = declared, inferred
        if a.elem_type and b.elem_type and a.elem_type != b.elem_type:
            raise InferenceError(f"{where}: declared {a} but inferred {b}")
        elem = a.elem_type or b.elem_type
        if a.shape is None or b.shape is None:
            shape = a.shape if b.shape is None else b.shape
        else:
            if len(a.shape) != len(b.shape):
                raise InferenceError(f"{where}: declared {a} but inferred {b} (rank differs)")
            dims = []
            for x, y in zip(a.shape, b.shape):
                if isinstance(x, int) and isinstance(y, int) and x != y:
                    raise InferenceError(f"{where}: declared {a} but inferred {b}")
                dims.append(x if isinstance(x, int) else (y if y is not None else x))
            shape = tuple(dims)
        return type(a)(elem, shape)
    if isinstance(declared, Sequence) and isinstance(inferred, Sequence):
        return Sequence(refine(declared.elem, inferred.elem, where))
    if isinstance(declared, Optional) and isinstance(inferred, Optional):
        return Optional(refine(declared.elem, inferred.elem, where))
    if type(declared) is not type(inferred):
        raise InferenceError(f"{where}: declared {declared} but inferred {inferred}")
    return declared


class _ModelInference:
    def __init__(self, model: ir.Model, strict: bool) -> None:
        self.model = model
        self.strict = strict
        self.functions = {(f.domain, f.name): f for f in model.functions}

    def problem(self, exc: OnnxcraftError) -> None:
        if self.strict:
            raise exc
        warnings.warn(str(exc), InferenceWarning, stacklevel=4)

    def graph(
        self,
        graph: ir.Graph,
        outer: dict[str, ValueType | None],
        outer_values: dict[str, Any],
        opsets: dict[str, int],
    ) -> None:
        types: dict[str, ValueType | None] = dict(outer)
        values: dict[str, Any] = dict(outer_values)
        declared = {v.name: v.type for v in graph.value_info}
        declared.update({v.name: v.type for v in graph.outputs})
        for info in graph.inputs:
            types[info.name] = info.type
        for tensor in graph.initializers:
            t = Tensor(tensor.elem_type, tensor.dims)
            types[tensor.name] = refine(types.get(tensor.name), t, f"initializer {tensor.name!r}")
            if _small(tensor.dims):
                values[tensor.name] = tensor  # decoded only if a rule asks for the value
        for node in graph.nodes:
            self.node(node, types, values, declared, opsets)
        inferred_names = set()
        for info in graph.value_info:
            info.type = types.get(info.name, info.type)
            inferred_names.add(info.name)
        outputs = {v.name for v in graph.outputs}
        for info in graph.outputs:
            info.type = types.get(info.name, info.type)
        inputs = {v.name for v in graph.inputs} | {t.name for t in graph.initializers}
        for node in graph.nodes:
            for name in node.outputs:
                if (
                    name
                    and name not in inferred_names
                    and name not in outputs
                    and name not in inputs
                ) and types.get(name) is not None:
                    graph.value_info.append(ir.ValueInfo(name, types[name]))
                    inferred_names.add(name)

    def node(
        self,
        node: ir.Node,
        types: dict[str, ValueType | None],
        values: dict[str, Any],
        declared: dict[str, ValueType | None],
        opsets: dict[str, int],
    ) -> None:
        label = f"node {node.name or node.op_type!r} ({node.op_type})"
        input_types = [types.get(n) if n else None for n in node.inputs]
        input_values = [values.get(n) if n else None for n in node.inputs]
        try:
            out_types, out_values = self._infer_node(
                node, input_types, input_values, types, values, opsets
            )
        except OnnxcraftError as exc:
            self.problem(InferenceError(f"{label}: {exc}"))
            out_types, out_values = [None] * len(node.outputs), {}
        for i, name in enumerate(node.outputs):
            if not name:
                continue
            inferred = out_types[i] if i < len(out_types) else None
            try:
                types[name] = refine(declared.get(name), inferred, f"{label} output {name!r}")
            except InferenceError as exc:
                self.problem(exc)
                types[name] = declared.get(name)
            if i in out_values:
                values[name] = out_values[i]

    def _infer_node(
        self,
        node: ir.Node,
        input_types: list[ValueType | None],
        input_values: list[Any],
        types: dict[str, ValueType | None],
        values: dict[str, Any],
        opsets: dict[str, int],
    ) -> tuple[list[ValueType | None], dict[int, Any]]:
        function = self.functions.get((node.domain, node.op_type))
        if function is not None:
            return self._function(function, input_types), {}
        op = self._op(node, opsets)
        attributes: dict[str, Any] = {}
        bodies: dict[str, list[ValueType | None]] = {}
        for attr in node.attributes:
            if attr.type == "GRAPH":
                bodies[attr.name] = self._body(
                    node, attr.name, attr.value, input_types, types, values, opsets
                )
            elif attr.type == "TENSOR":
                attributes[attr.name] = attr.value.array()
            elif not attr.ref:
                attributes[attr.name] = attr.value
        opset = opsets.get(node.domain, 0)
        return infer_types(
            op, input_types, input_values, attributes, len(node.outputs), opset, bodies
        )

    def _op(self, node: ir.Node, opsets: dict[str, int]) -> OpInfo:
        from onnxcraft import specs

        opset = opsets.get(node.domain)
        since = (
            None if opset is None else specs.resolve_since_version(node.domain, node.op_type, opset)
        )
        if since is None:
            return custom_op_info(node.domain, node.op_type, len(node.inputs), len(node.outputs))
        return op_info(node.domain, node.op_type, since)

    def _body(
        self,
        node: ir.Node,
        name: str,
        graph: ir.Graph,
        input_types: list[ValueType | None],
        types: dict[str, ValueType | None],
        values: dict[str, Any],
        opsets: dict[str, int],
    ) -> list[ValueType | None]:
        # Body inputs without declared types get them from the operator's inputs.
        implied = _implied_body_inputs(node, input_types)
        for info, t in zip(graph.inputs, implied):
            if info.type is None:
                info.type = t
        self.graph(graph, types, values, opsets)
        return [o.type for o in graph.outputs]

    def _function(
        self, function: ir.Function, input_types: list[ValueType | None]
    ) -> list[ValueType | None]:
        graph = ir.Graph(
            nodes=[_copy_node(n) for n in function.nodes],
            inputs=[ir.ValueInfo(n, t) for n, t in zip(function.inputs, input_types)],
            outputs=[ir.ValueInfo(n) for n in function.outputs],
        )
        opsets = dict(self.model.opset_imports)
        opsets.update(function.opset_imports)
        try:
            self.graph(graph, {}, {}, opsets)
        except OnnxcraftError:
            return [None] * len(function.outputs)
        return [o.type for o in graph.outputs]


def _copy_node(node: ir.Node) -> ir.Node:
    return ir.Node(
        node.op_type,
        list(node.inputs),
        list(node.outputs),
        node.domain,
        node.name,
        list(node.attributes),
    )


def _implied_body_inputs(
    node: ir.Node, input_types: list[ValueType | None]
) -> list[ValueType | None]:
    if node.domain != "":
        return []
    if node.op_type == "Loop":
        from onnxcraft.dtypes import ElementType

        return [Tensor(ElementType.INT64, ()), Tensor(ElementType.BOOL, ()), *input_types[2:]]
    if node.op_type == "SequenceMap":
        return [t.elem if isinstance(t, Sequence) else t for t in input_types]
    return []


def _small(dims: tuple[int, ...]) -> bool:
    total = 1
    for d in dims:
        total *= d
    return total <= _VALUE_LIMIT


def infer_shapes(model: Any, *, strict: bool = False) -> Any:
    """A copy of ``model`` with every output typed and value_info for every intermediate."""
    from onnxcraft.proto.serde import model_from_proto, model_to_proto

    model_ir = model_from_proto(model)
    runner = _ModelInference(model_ir, strict)
    runner.graph(model_ir.graph, {}, {}, model_ir.opset_imports)
    return model_to_proto(model_ir)
