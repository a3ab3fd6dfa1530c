"""Rules for every node's attributes, whatever the operator: named, given once, and a
reference to a function attribute only inside a function body that has it."""

from __future__ import annotations

from onnxcraft.core.check.problems import Problems
from onnxcraft.core.check.scope import Scope
from onnxcraft.ir import Attribute

__all__ = ["check_attribute"]


def check_attribute(
    attr: Attribute, place: str, scope: Scope, seen: set[str], problems: Problems
) -> bool:
    """Check one attribute of a node (``seen``: the names before it); True when it holds a
    value of its own (not a reference) for the caller to check further."""
    if not attr.name:
        problems.report(place, "attribute", "an attribute has no name")
    elif attr.name in seen:
        problems.report(place, "attribute", f"attribute {attr.name!r} is given twice")
    seen.add(attr.name)
    if attr.malformed:
        problems.report(place, "attribute-value", f"attribute {attr.name!r} {attr.malformed}")
        return False
    if attr.ref:
        _check_reference(attr, place, scope, problems)
        return False
    if attr.type == "UNDEFINED":
        problems.report(place, "attribute", f"attribute {attr.name!r} has no type or value")
    return True


def _check_reference(attr: Attribute, place: str, scope: Scope, problems: Problems) -> None:
    if scope.function_attrs is None:
        problems.report(
            place,
            "attribute",
            f"attribute {attr.name!r} refers to {attr.ref!r} (ref_attr_name), which only "
            f"a function body may do",
        )
    elif attr.ref not in scope.function_attrs:
        problems.report(
            place,
            "attribute",
            f"attribute {attr.name!r} refers to {attr.ref!r}, which is not an attribute "
            f"of the enclosing function",
        )
