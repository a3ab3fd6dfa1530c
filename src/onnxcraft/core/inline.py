"""``oc.inline(model, **inputs)``: compose an existing model into the graph being built.

The model's nodes are emitted again as DSL nodes (checked and inferred like any call), its
initializers become constants, its subgraphs bodies and its local functions travel with it.
Nothing keeps the model's names, so composing the same model twice cannot clash.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from onnxcraft.core import literals
from onnxcraft.core.emit import emit_node
from onnxcraft.core.graphwalk import ir_nodes
from onnxcraft.core.opinfo import OpInfo, custom_op_info, op_info
from onnxcraft.core.scope import current_scope, new_scope
from onnxcraft.core.var import ARG, Body, Var
from onnxcraft.dtypes import element_type_of
from onnxcraft.errors import BuildError
from onnxcraft.ir import Attribute, Function, Graph, Model, Node, TensorData
from onnxcraft.specs import is_standard_domain, resolve_since_version
from onnxcraft.types import ValueType

__all__ = ["inline"]


class _IRFunction:
    """A model-local function carried over as is (what build asks function definitions for)."""

    def __init__(self, function: Function, siblings: dict[tuple[str, str], Function]):
        self.function = function
        self.siblings = siblings  # the other functions of its model, which it may call

    def to_ir(self) -> tuple[Function, dict[tuple[str, str], Any]]:
        """A copy of the function (build adjusts its imports) and the functions it calls."""
        function = dataclasses.replace(
            self.function, opset_imports=dict(self.function.opset_imports)
        )
        own = (function.domain, function.name)
        called: dict[tuple[str, str], Any] = {}
        for node in ir_nodes(function.nodes):
            key = (node.domain, node.op_type)
            if key in self.siblings and key != own and key not in called:
                called[key] = _IRFunction(self.siblings[key], self.siblings)
        return function, called


def inline(model: Any, **inputs: Any) -> dict[str, Var]:
    """Emit ``model``'s computation on ``inputs`` (Vars or literals, by input name).

    ``model`` is any model: a ModelProto (onnxcraft's or onnx's), an IR model, its bytes or
    the path of its file.
    """
    # Lazy: reading a model loads protobuf, which `import onnxcraft` does not.
    from onnxcraft.io import model_ir as read_model_ir  # noqa: PLC0415

    model_ir = read_model_ir(model, what="inline: model")
    graph = model_ir.graph
    initializers = {t.name: t for t in graph.initializers}
    env: dict[str, Var] = {}
    expected = [i.name for i in graph.inputs if i.name not in initializers]
    unknown = [k for k in inputs if k not in {i.name for i in graph.inputs}]
    if unknown:
        raise BuildError(f"inline: the model has no input(s) {unknown}; its inputs are {expected}")
    missing = [name for name in expected if name not in inputs]
    if missing:
        raise BuildError(f"inline: missing value(s) for input(s) {missing}")
    inliner = _Inliner(model_ir)
    for tensor in graph.initializers:
        if tensor.name not in inputs:
            env[tensor.name] = inliner.constant(tensor)
    for info in graph.inputs:
        if info.name in inputs:
            env[info.name] = inliner.as_var(info.name, inputs[info.name])
    inliner.nodes(graph.nodes, env, model_ir.opset_imports)
    return {o.name: env[o.name] for o in graph.outputs}


class _Inliner:
    def __init__(self, model: Model) -> None:
        self.model = model
        self.functions = {(f.domain, f.name): f for f in model.functions}
        self.wrappers: dict[tuple[str, str], _IRFunction] = {}  # one per function and call

    def as_var(self, name: str, value: Any) -> Var:
        if isinstance(value, Var):
            return value
        if literals.is_literal(value):
            array = literals.literal_array("inline", name, value)
            return literals.lift(array, element_type_of(array.dtype), current_scope())
        raise BuildError(
            f"inline: input {name!r} must be a Var or a literal, got {type(value).__name__}"
        )

    def constant(self, tensor: TensorData) -> Var:
        return literals.lift(tensor.array(), tensor.elem_type, current_scope())

    def op(self, node: Node, opsets: dict[str, int]) -> OpInfo:
        key = (node.domain, node.op_type)
        if key in self.functions:
            return self.function_op(node)
        opset = opsets.get(node.domain)
        since = None if opset is None else resolve_since_version(node.domain, node.op_type, opset)
        if since is None:
            if is_standard_domain(node.domain):
                raise BuildError(
                    f"inline: node {node.name or node.op_type!r}: {node.op_type} does not exist in "
                    f"{node.domain or 'ai.onnx'} at the model's opset {opset}"
                )
            return custom_op_info(
                node.domain,
                node.op_type,
                len(node.inputs),
                len(node.outputs),
                since_version=opset or 1,
            )
        return op_info(node.domain, node.op_type, since)

    def function_op(self, node: Node) -> OpInfo:
        """A call of a model-local function: carried along, typed by tracing its body."""
        key = (node.domain, node.op_type)
        wrapper = self.wrappers.get(key)
        if wrapper is None:
            wrapper = self.wrappers[key] = _IRFunction(self.functions[key], self.functions)
        function = self.functions[key]
        return custom_op_info(
            node.domain,
            node.op_type,
            len(node.inputs),
            len(node.outputs),
            since_version=self.model.opset_imports.get(node.domain, 1),
            rule=lambda ctx: self.call_types(function, ctx.input_types, ctx.attributes),
            function=wrapper,
        )

    def call_types(
        self, function: Function, types: Any, attributes: dict[str, Any]
    ) -> list[ValueType | None]:
        """The output types of a call: the function's body traced on the call's input types.

        The traced nodes live in a scope of their own that no output reaches, so the model
        keeps the call node; the trace only tells what its outputs are.
        """
        refs = {a.name: self.attribute(a, {}, {}, None) for a in function.attribute_defaults}
        refs.update(attributes)
        with new_scope() as scope:
            env = {
                name: Var(t, kind=ARG, scope=scope)
                for name, t in zip(function.inputs, types)
                if name
            }
            self.nodes(function.nodes, env, function.opset_imports, refs)
        return [env[o].type if o in env else None for o in function.outputs]

    def nodes(
        self,
        nodes: list[Node],
        env: dict[str, Var],
        opsets: dict[str, int],
        refs: dict[str, Any] | None = None,
    ) -> None:
        """Emit ``nodes``; ``refs`` holds the attributes of the function being traced."""
        for node in nodes:
            op = self.op(node, opsets)
            args = [self.read(node, name, env) for name in node.inputs]
            attributes = {}
            for attr in node.attributes:
                if attr.ref and (refs is None or attr.ref not in refs):
                    continue  # IR.md: a reference the call leaves unset drops the attribute
                attributes[attr.name] = (
                    refs[attr.ref]
                    if refs is not None and attr.ref
                    else self.attribute(attr, env, opsets, refs)
                )
            opset = opsets.get(node.domain, op.since_version)
            outputs = emit_node(op, opset, args, attributes, len(node.outputs))
            for name, var in zip(node.outputs, outputs):
                if name:
                    env[name] = var

    def read(self, node: Node, name: str, env: dict[str, Var]) -> Var | None:
        if not name:
            return None
        if name not in env:
            raise BuildError(
                f"inline: node {node.name or node.op_type!r} reads {name!r}, "
                f"which is not defined before it"
            )
        return env[name]

    def attribute(
        self,
        attr: Attribute,
        env: dict[str, Var],
        opsets: dict[str, int],
        refs: dict[str, Any] | None,
    ) -> Any:
        kind, value = attr.type, attr.value
        if kind == "TENSOR":
            return value.array()
        if kind == "TENSORS":
            return [t.array() for t in value]
        if kind == "GRAPH":
            return self.body(value, env, opsets, refs)
        if kind == "GRAPHS":
            return [self.body(g, env, opsets, refs) for g in value]
        return value

    def body(
        self,
        graph: Graph,
        outer: dict[str, Var],
        opsets: dict[str, int],
        refs: dict[str, Any] | None,
    ) -> Body:
        with new_scope() as scope:
            env = dict(outer)
            args = []
            for info in graph.inputs:
                var = Var(info.type, kind=ARG, scope=scope)
                env[info.name] = var
                args.append(var)
            for tensor in graph.initializers:
                env[tensor.name] = self.constant(tensor)
            self.nodes(graph.nodes, env, opsets, refs)
            outputs = [env[o.name] for o in graph.outputs]
        return Body(args, outputs, scope, graph.name or "body")
