"""``oc.inline(model, **inputs)``: compose an existing model into the graph being built.

The model's nodes are emitted again as DSL nodes (checked and inferred like any call), its
initializers become constants, its subgraphs bodies and its local functions travel with it.
Nothing keeps the model's names, so composing the same model twice cannot clash.
"""

from __future__ import annotations

from typing import Any

from onnxcraft import ir
from onnxcraft.core import literals
from onnxcraft.core.emit import emit_node
from onnxcraft.core.opinfo import OpInfo, custom_op_info, op_info
from onnxcraft.core.scope import current_scope, new_scope
from onnxcraft.core.var import ARG, Body, Var
from onnxcraft.errors import BuildError

__all__ = ["inline"]


class _IRFunction:
    """A model-local function carried over as is (what build asks function definitions for)."""

    def __init__(self, function: ir.Function) -> None:
        self.function = function

    def to_ir(self) -> ir.Function:
        return self.function


def inline(model: Any, **inputs: Any) -> dict[str, Var]:
    """Emit ``model``'s computation on ``inputs`` (Vars or literals, by input name)."""
    from onnxcraft.proto.serde import model_from_proto

    model_ir = model if isinstance(model, ir.Model) else model_from_proto(model)
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
    inliner.nodes(graph.nodes, env)
    return {o.name: env[o.name] for o in graph.outputs}


class _Inliner:
    def __init__(self, model: ir.Model) -> None:
        self.model = model
        self.functions = {(f.domain, f.name): f for f in model.functions}

    def as_var(self, name: str, value: Any) -> Var:
        if isinstance(value, Var):
            return value
        if literals.is_literal(value):
            from onnxcraft.dtypes import element_type_of

            array = literals.literal_array("inline", name, value)
            return literals.lift(array, element_type_of(array.dtype), current_scope())
        raise BuildError(
            f"inline: input {name!r} must be a Var or a literal, got {type(value).__name__}"
        )

    def constant(self, tensor: ir.TensorData) -> Var:
        return literals.lift(tensor.array(), tensor.elem_type, current_scope())

    def op(self, node: ir.Node) -> OpInfo:
        from onnxcraft import specs

        key = (node.domain, node.op_type)
        if key in self.functions:
            info = custom_op_info(node.domain, node.op_type, len(node.inputs), len(node.outputs))
            info.since_version = self.model.opset_imports.get(node.domain, 1)
            info.extra["function"] = _IRFunction(self.functions[key])
            info.rule_resolved = True
            return info
        opset = self.model.opset_imports.get(node.domain)
        since = (
            None if opset is None else specs.resolve_since_version(node.domain, node.op_type, opset)
        )
        if since is None:
            if specs.is_standard_domain(node.domain):
                raise BuildError(
                    f"inline: node {node.name or node.op_type!r}: {node.op_type} does not exist in "
                    f"{node.domain or 'ai.onnx'} at the model's opset {opset}"
                )
            info = custom_op_info(node.domain, node.op_type, len(node.inputs), len(node.outputs))
            info.since_version = opset or 1
            return info
        return op_info(node.domain, node.op_type, since)

    def nodes(self, nodes: list[ir.Node], env: dict[str, Var]) -> None:
        for node in nodes:
            op = self.op(node)
            args: list[Var | None] = []
            for name in node.inputs:
                if not name:
                    args.append(None)
                elif name in env:
                    args.append(env[name])
                else:
                    raise BuildError(
                        f"inline: node {node.name or node.op_type!r} reads {name!r}, "
                        f"which is not defined before it"
                    )
            attributes = {a.name: self.attribute(a, env) for a in node.attributes}
            opset = self.model.opset_imports.get(node.domain, op.since_version)
            outputs = emit_node(op, opset, args, attributes, len(node.outputs))
            for name, var in zip(node.outputs, outputs):
                if name:
                    env[name] = var

    def attribute(self, attr: ir.Attribute, env: dict[str, Var]) -> Any:
        kind, value = attr.type, attr.value
        if kind == "TENSOR":
            return value.array()
        if kind == "TENSORS":
            return [t.array() for t in value]
        if kind == "GRAPH":
            return self.body(value, env)
        if kind == "GRAPHS":
            return [self.body(g, env) for g in value]
        return value

    def body(self, graph: ir.Graph, outer: dict[str, Var]) -> Body:
        with new_scope() as scope:
            env = dict(outer)
            args = []
            for info in graph.inputs:
                var = Var(info.type, kind=ARG, scope=scope)
                env[info.name] = var
                args.append(var)
            for tensor in graph.initializers:
                env[tensor.name] = self.constant(tensor)
            self.nodes(graph.nodes, env)
            outputs = [env[o.name] for o in graph.outputs]
        return Body(args, outputs, scope, graph.name or "body")
