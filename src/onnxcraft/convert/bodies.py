"""An operator absent from the target opset, replaced by the standard's function body.

The body (carried by the operator's spec) is inlined in place of the node: its values renamed
to fresh names, its attribute references bound to the node's attributes (or the body's
defaults), and its nodes handed back to the engine, written for the opset the body declares,
to be converted further down. Bodies that do not compute what the operator's text defines for
some element types (``tests/evaluate/data/function_body_differences.json`` has the findings)
are refused for those types.
"""

from __future__ import annotations

from dataclasses import replace

from onnxcraft import ir
from onnxcraft.convert.context import Emitted, StepContext
from onnxcraft.dtypes import ElementType
from onnxcraft.evaluate.spec_functions import function_from_spec
from onnxcraft.specs.model import OpSpec

__all__ = ["expand_body"]

# (operator, element types of its first input) whose body departs from the operator's text.
_BODY_DEPARTS: dict[str, tuple[frozenset[ElementType], str]] = {
    "MeanVarianceNormalization": (
        frozenset({ElementType.FLOAT16, ElementType.BFLOAT16}),
        "the standard's body mixes float constants into the input's type",
    ),
    "Shrink": (
        frozenset({ElementType.UINT8, ElementType.UINT16, ElementType.UINT32, ElementType.UINT64}),
        "the standard's body negates lambd in an unsigned type",
    ),
    "ReduceL2": (
        frozenset({ElementType.INT32, ElementType.INT64, ElementType.UINT32, ElementType.UINT64,
                   ElementType.DOUBLE}),
        "the standard's body takes the square root in float32",
    ),
    "HardSwish": (
        frozenset({ElementType.DOUBLE}),
        "the standard's body rounds alpha = 1/6 to float32",
    ),
}  # fmt: skip


def expand_body(ctx: StepContext, spec: OpSpec, domain: str) -> None:
    """Replace ``ctx.node`` by the body of ``spec`` (or refuse)."""
    node = ctx.node
    function = function_from_spec(domain, spec.name, spec.since_version)
    if function is None:
        ctx.fail(
            "the operator does not exist at the target opset and the standard gives no "
            "function body to replace it with"
            + (" (its body depends on the node's types)" if spec.context_dependent_function else "")
        )
    departs = _BODY_DEPARTS.get(spec.name)
    if departs is not None and node.inputs and ctx.elem_type(node.inputs[0]) in departs[0]:
        ctx.fail(f"the operator does not exist at the target opset, and {departs[1]}")
    if any(a.type in ("GRAPH", "GRAPHS") for n in function.nodes for a in n.attributes):
        ctx.fail(
            "the operator does not exist at the target opset, and its body holds subgraphs "
            "(inlining them is not supported yet)"
        )
    names: dict[str, str] = {"": ""}
    for formal, actual in zip(function.inputs, node.inputs):
        names[formal] = actual
    for formal in function.inputs[len(node.inputs) :]:
        names[formal] = ""
    for formal, actual in zip(function.outputs, node.outputs):
        names[formal] = actual or ctx.fresh_name(f"{spec.name.lower()}_unused")
    given = {a.name: a for a in node.attributes}
    defaults = {a.name: a for a in function.attribute_defaults}
    for body_node in function.nodes:
        attributes: list[ir.Attribute] = []
        for attr in body_node.attributes:
            if attr.ref:
                bound = given.get(attr.ref) or defaults.get(attr.ref)
                if bound is None:
                    continue
                attributes.append(replace(bound, name=attr.name))
            else:
                attributes.append(replace(attr))
        inputs = [_renamed(ctx, names, n, spec.name) for n in body_node.inputs]
        outputs = [_renamed(ctx, names, n, spec.name) for n in body_node.outputs]
        copy = ir.Node(
            body_node.op_type, inputs, outputs, domain=body_node.domain, attributes=attributes
        )
        ctx.before.append(Emitted(copy, {**ctx.opsets, **function.opset_imports}))
    ctx.remove()


def _renamed(ctx: StepContext, names: dict[str, str], name: str, op_type: str) -> str:
    if name not in names:
        names[name] = ctx.fresh_name(f"{op_type.lower()}_{name}")
    return names[name]
