"""Emitting an ``@oc.function``'s traced body as its FunctionProto (an ir.Function).

A function body has no initializers, so its constants become Constant nodes; it imports the
opsets its nodes were built from, and brings along the functions it calls.
"""

from __future__ import annotations

from typing import Any

from onnxcraft.core.emit_graph import GraphEmitter
from onnxcraft.core.graphwalk import collect
from onnxcraft.core.local_functions import FunctionKey, ir_key
from onnxcraft.core.opsets import model_opsets
from onnxcraft.core.var import Body
from onnxcraft.errors import BuildError
from onnxcraft.ir import Function

__all__ = ["function_body_key", "function_ir"]


def function_ir(
    definition: Any, body: Body | None = None
) -> tuple[Function, dict[FunctionKey, Any]]:
    """The FunctionProto of an ``@oc.function`` and the functions its body calls.

    ``body`` defaults to the body traced at the function's first call.
    """
    if body is None:
        body = definition.body
    assert body is not None
    builder = GraphEmitter([], {})
    builder.constants_as_nodes = True
    inner = collect(body.outputs, body.scope, builder.cache)
    if inner.captures:
        raise BuildError(
            f"function {definition.name}: its body uses {inner.captures[0]!r} from outside; a "
            f"function sees only its inputs (make the value an input)"
        )
    for var in body.inputs:
        name = var.name or builder.namer.fresh("input")
        builder.namer.claim(name)
        builder.names[id(var)] = name
    builder.mark_used(inner, body.outputs)
    nodes = builder.emit_nodes(inner)
    inner_nodes = {id(n) for n in inner.nodes}
    outputs: list[str] = []
    for var in body.outputs:
        if (
            var.producer is not None
            and id(var.producer) in inner_nodes
            and builder.name_of(var) not in outputs
        ):
            outputs.append(builder.name_of(var))
        else:
            name = builder.namer.fresh("output")
            nodes.append(builder.identity(var, name))
            outputs.append(name)
    # A function's opsets merge into the model's (merge_function_opsets): with no ai.onnx
    # operator of its own it asks for the lowest, leaving the choice to the model.
    opsets = model_opsets(
        builder.calls, builder.uses_constant_node, builder.identity_types, None, default_opset=1
    )
    function = Function(
        domain=definition.domain,
        name=definition.name,
        inputs=[builder.names[id(v)] for v in body.inputs],
        outputs=outputs,
        nodes=nodes,
        attributes=list(definition.attribute_names),
        opset_imports=opsets,
    )
    return function, dict(builder.function_defs)


def function_body_key(definition: Any, body: Body) -> tuple[Any, ...]:
    """A value equal for two traced bodies exactly when they give the same FunctionProto."""
    function, _ = function_ir(definition, body)
    return (
        tuple(function.inputs),
        tuple(function.outputs),
        tuple(ir_key(n) for n in function.nodes),
    )
