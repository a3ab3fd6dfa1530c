"""Rules of a node against its operator: the operator exists, and its arity, attributes and
types fit the spec; a call of a model-local function fits the function's signature."""

from __future__ import annotations

from typing import Any

from onnxcraft.core.attribute_bounds import (
    axis_problem,
    bounding_input,
    rank_of,
    value_problem,
)
from onnxcraft.core.check.problems import Problems, domain_label
from onnxcraft.core.check.scope import Defined, Scope
from onnxcraft.core.opinfo import SINGLE, VARIADIC, FormalInfo, OpInfo, op_info
from onnxcraft.core.typestr import matches, type_to_string
from onnxcraft.errors import OnnxcraftError
from onnxcraft.ir import Attribute, Function, Node, TensorData
from onnxcraft.specs import is_standard_domain, resolve_since_version
from onnxcraft.types import ValueType

__all__ = [
    "check_arity",
    "check_attribute_values",
    "check_attributes",
    "check_function_call",
    "check_types",
    "operator_info",
]


def operator_info(node: Node, place: str, opset: int, problems: Problems) -> OpInfo | None:
    """The spec of a standard operator (None for custom domains and after a problem)."""
    domain = node.domain
    if not is_standard_domain(domain):
        return None  # a custom domain: nothing is known about its operators
    since = resolve_since_version(domain, node.op_type, opset)
    if since is None:
        problems.report(
            place,
            "operator",
            f"operator {node.op_type!r} does not exist in {domain_label(domain)} at opset {opset}",
        )
        return None
    try:
        info = op_info(domain, node.op_type, since)
    except OnnxcraftError as exc:
        problems.report(place, "operator", str(exc))
        return None
    if info.spec is not None and info.spec.deprecated:
        problems.report(
            place,
            "operator",
            f"{node.op_type} is deprecated at {domain_label(domain)} opset {opset}",
        )
        return None
    return info


def check_function_call(node: Node, place: str, function: Function, problems: Problems) -> None:
    if len(node.inputs) > len(function.inputs):
        problems.report(
            place,
            "arity",
            f"has {len(node.inputs)} inputs, function {node.op_type} takes {len(function.inputs)}",
        )
    if len(node.outputs) > len(function.outputs):
        problems.report(
            place,
            "arity",
            f"has {len(node.outputs)} outputs, function {node.op_type} has {len(function.outputs)}",
        )
    known = set(function.attributes) | {a.name for a in function.attribute_defaults}
    for attr in node.attributes:
        if attr.name and attr.name not in known:
            problems.report(
                place,
                "attribute",
                f"unknown attribute {attr.name!r} for function {node.op_type} "
                f"(known: {', '.join(sorted(known)) or 'none'})",
            )


def check_attributes(info: OpInfo, node: Node, place: str, problems: Problems) -> None:
    """Attribute rules of the operator's spec: known names, types, required ones."""
    given = set()
    for attr in node.attributes:
        given.add(attr.name)
        spec = info.attributes.get(attr.name)
        if spec is None:
            known = ", ".join(sorted(info.attributes)) or "none"
            problems.report(
                place,
                "attribute",
                f"unknown attribute {attr.name!r} for {info.op_type}-{info.since_version} "
                f"(known: {known})",
            )
        elif attr.type not in (spec.type, "UNDEFINED"):
            problems.report(
                place,
                "attribute",
                f"attribute {attr.name!r} has type {attr.type}, expected {spec.type}",
            )
    for name, spec in info.attributes.items():
        if spec.required and name not in given:
            problems.report(place, "attribute", f"required attribute {name!r} is missing")


def check_attribute_values(
    info: OpInfo, node: Node, place: str, scope: Scope, defined: Defined, problems: Problems
) -> None:
    """Enumerated attributes hold allowed values; axis attributes fit their input's rank."""
    ruled = info.ruled_attributes
    if not ruled:
        return
    # an attribute of the wrong type is reported by check_attributes; its value is not compared
    given = {
        a.name: _plain(a)
        for a in node.attributes
        if not a.ref and a.name in ruled and a.type == info.attributes[a.name].type
    }
    for name, value in given.items():
        spec = info.attributes[name]
        if value is None:
            continue
        problem = value_problem(spec, value)
        index = bounding_input(info, spec)
        if problem is None and index is not None and index < len(node.inputs):
            source = node.inputs[index]
            known = defined.types[source] if source in defined.types else scope.type_of(source)
            rank = rank_of(known) if source else None
            if rank is not None:
                problem = axis_problem(spec, value, rank, info.defaults | given)
        if problem is not None:
            problems.report(place, "attribute", f"{info.op_type}-{info.since_version}: {problem}")


def _plain(attribute: Attribute) -> Any:
    """An attribute's value as the rules compare it (text, ints, a tensor's array)."""
    value = attribute.value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list):
        return [v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in value]
    if isinstance(value, TensorData):
        try:
            return value.array()
        except (ValueError, TypeError):
            return None  # a malformed tensor is reported by the tensor rules
    return value


def check_arity(info: OpInfo, node: Node, place: str, problems: Problems) -> None:
    label = f"{info.op_type}-{info.since_version}"
    _arity_side(label, info.inputs, node.inputs, place, "input", problems)
    _arity_side(label, info.outputs, node.outputs, place, "output", problems)


def _arity_side(
    label: str,
    formals: tuple[FormalInfo, ...],
    actual: list[str],
    place: str,
    kind: str,
    problems: Problems,
) -> None:
    """IR.md: trailing optional entries may be left out or empty; required ones may not."""
    variadic = bool(formals) and formals[-1].option == VARIADIC
    if not variadic and len(actual) > len(formals):
        problems.report(
            place,
            "arity",
            f"has {len(actual)} {kind}s, {label} has at most {len(formals)}",
        )
    for i, formal in enumerate(formals):
        if formal.option == SINGLE and (i >= len(actual) or not actual[i]):
            state = "missing" if i >= len(actual) else "empty"
            problems.report(
                place, "arity", f"required {kind} {formal.name!r} (position {i}) is {state}"
            )
        elif formal.option == VARIADIC:
            count = sum(1 for name in actual[i:] if name)
            if count < formal.min_arity:
                problems.report(
                    place,
                    "arity",
                    f"variadic {kind} {formal.name!r} has {count} values, {label} needs "
                    f"at least {formal.min_arity}",
                )


def check_types(
    info: OpInfo, node: Node, place: str, scope: Scope, defined: Defined, problems: Problems
) -> None:
    """Known input and output types against the constraints, bound once per parameter."""
    bound: dict[str, tuple[str, str]] = {}  # parameter -> (type string, which value)
    sides = (("input", info.inputs, node.inputs), ("output", info.outputs, node.outputs))
    for kind, formals, names in sides:
        for i, name in enumerate(names):
            if not name or not formals:
                continue
            formal = formals[min(i, len(formals) - 1)]
            actual = defined.types[name] if name in defined.types else scope.type_of(name)
            if actual is None or not formal.allowed:
                continue
            if not any(matches(actual, allowed) for allowed in formal.allowed):
                allowed = ", ".join(type_to_string(t) for t in formal.allowed)
                problems.report(
                    place,
                    "type-constraint",
                    f"{kind} {formal.name!r} ({name!r}) has type {type_to_string(actual)}, "
                    f"allowed: {{{allowed}}}",
                )
                continue
            _bind(formal, actual, f"{kind} {formal.name!r} ({name!r})", bound, place, problems)


def _bind(
    formal: FormalInfo,
    actual: ValueType,
    label: str,
    bound: dict[str, tuple[str, str]],
    place: str,
    problems: Problems,
) -> None:
    if formal.constraint is None or not formal.homogeneous:
        return
    text = type_to_string(actual)
    if "?" in text:
        return
    first = bound.setdefault(formal.constraint, (text, label))
    if first[0] != text:
        problems.report(
            place,
            "type-constraint",
            f"type parameter {formal.constraint} is bound to {first[0]} by {first[1]} "
            f"but {label} has {text}",
        )
