"""What a node's call looks like: which attributes it passes, how many inputs and outputs the
generated function takes, and the statement that assigns its results."""

from __future__ import annotations

import math

import numpy as np

from onnxcraft.core.opinfo import VARIADIC, OpInfo
from onnxcraft.errors import CodeGenerationError
from onnxcraft.ir import Attribute, Node
from onnxcraft.pycode.layout import LINE_LENGTH, Expr, Group, fill, layout
from onnxcraft.pycode.values import string_text

__all__ = [
    "assignment",
    "check_arity",
    "counted",
    "has_graphs",
    "is_default",
    "keyword",
    "trim_inputs",
    "variadic_outputs",
]

_INDENT = "    "


def keyword(name: str, value: Expr) -> Expr:
    if isinstance(value, str):
        return f"{name}={value}"
    return Group(f"{name}={value.opening}", value.items, value.closing)


def is_default(attr: Attribute, info: OpInfo) -> bool:
    """Whether ``attr`` holds its operator's default (what an absent attribute means)."""
    spec = info.attributes.get(attr.name)
    if spec is None or spec.default is None or attr.ref or spec.type != attr.type:
        return False
    value, default = attr.value, spec.default
    if attr.type == "FLOAT":
        return bool(np.float32(value) == np.float32(default)) and not math.isnan(value)
    if attr.type in ("INT", "STRING"):
        return bool(value == default) and type(value) is type(default)
    if attr.type in ("INTS", "STRINGS"):
        return isinstance(default, (list, tuple)) and list(value) == list(default)
    if attr.type == "FLOATS":
        return isinstance(default, (list, tuple)) and [np.float32(v) for v in value] == [
            np.float32(v) for v in default
        ]
    return False


def trim_inputs(inputs: list[str]) -> list[str]:
    """A node's inputs without the absent ones at the end (the DSL drops trailing Nones)."""
    result = list(inputs)
    while result and not result[-1]:
        result.pop()
    return result


def variadic_outputs(info: OpInfo) -> bool:
    return bool(info.outputs) and info.outputs[-1].option == VARIADIC


def check_arity(node: Node, info: OpInfo, where: str) -> None:
    """A call the generated function cannot take (too few or too many inputs or outputs) is
    refused here, not left to fail as a Python TypeError in the generated code."""
    given = len(trim_inputs(node.inputs))
    maximum = info.max_inputs
    if given < info.min_inputs or (maximum is not None and given > maximum):
        if maximum is None:
            expected = f"at least {info.min_inputs}"
        elif maximum == info.min_inputs:
            expected = str(maximum)
        else:
            expected = f"{info.min_inputs} to {maximum}"
        raise CodeGenerationError(
            f"to_python: {where}: expected {expected} inputs for {node.op_type} version "
            f"{info.since_version}, got {given}"
        )
    if not variadic_outputs(info) and len(node.outputs) > len(info.outputs):
        raise CodeGenerationError(
            f"to_python: {where}: expected at most {len(info.outputs)} outputs for "
            f"{node.op_type} version {info.since_version}, got {len(node.outputs)}"
        )


def counted(node: Node) -> bool:
    """Whether the node's ``num_outputs`` attribute already gives its number of outputs."""
    attr = node.attribute("num_outputs")
    return attr is not None and attr.type == "INT" and attr.value == len(node.outputs)


def has_graphs(info: OpInfo) -> bool:
    return any(a.type in ("GRAPH", "GRAPHS") for a in info.attributes.values())


def assignment(
    targets: list[str],
    expr: Expr,
    tuple_result: bool,
    named: dict[int, str],
    typed: dict[int, str],
    indent: str,
) -> list[str]:
    """The statement assigning a call's results to ``targets`` ("_" for an absent output),
    then naming (``named``) and typing (``typed``) the outputs by position."""
    if not tuple_result:
        suffix = f".named({string_text(named[0])})" if 0 in named else ""
        suffix += f".with_type({typed[0]})" if 0 in typed else ""
        return layout(expr, indent, prefix=f"{targets[0]} = ", suffix=suffix)
    if all(t == "_" for t in targets):
        raise CodeGenerationError("to_python: a node whose outputs are all absent")
    if len(targets) == 1:
        lines = layout(expr, indent, prefix=f"({targets[0]},) = ")
    elif len(indent) + len(", ".join(targets)) + 20 <= LINE_LENGTH:
        lines = layout(expr, indent, prefix=f"{', '.join(targets)} = ")
    else:  # a long target list gets lines of its own: (a, b, ...) = call
        head = [f"{indent}(", *fill(targets, indent + _INDENT)]
        lines = [*head, *layout(expr, indent, prefix=") = ")]
    for index, target in enumerate(targets):
        calls = f".named({string_text(named[index])})" if index in named else ""
        calls += f".with_type({typed[index]})" if index in typed else ""
        if calls:
            lines.append(f"{indent}{target}{calls}")
    return lines
