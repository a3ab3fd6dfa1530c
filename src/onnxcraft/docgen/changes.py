"""What changed between two versions of an operator, computed from their specs.

The prose ``change`` note of a spec says why; this module says exactly what: attributes
added, removed, retyped, made required or optional, their defaults, enumerated values and axis
bounds changed; inputs and outputs added, removed, or of another kind (optional, variadic) or
type; type constraints widened or narrowed, with the types listed.
"""

from __future__ import annotations

from collections.abc import Sequence

from onnxcraft.specs.model import AttributeSpec, FormalParameter, OpSpec, TypeConstraint

__all__ = ["changes_between"]


def _names(items: Sequence[str]) -> str:
    return ", ".join(f"`{item}`" for item in items)


def _plural(word: str, count: int) -> str:
    return word if count == 1 else f"{word}s"


def _default_text(attribute: AttributeSpec) -> str:
    if attribute.required:
        return "required"
    if attribute.default is None:
        return "no default"
    return f"default `{attribute.default!r}`"


def _attribute_changes(before: AttributeSpec, after: AttributeSpec) -> list[str]:
    name = f"attribute `{after.name}`"
    found = []
    if before.type != after.type:
        found.append(f"{name} is retyped from {before.type} to {after.type}")
    if before.required != after.required or before.default != after.default:
        found.append(f"{name}: {_default_text(before)} became {_default_text(after)}")
    old_values, new_values = before.allowed, after.allowed
    if old_values != new_values:
        added = [v for v in new_values if v not in old_values]
        removed = [v for v in old_values if v not in new_values]
        if added and old_values:
            found.append(
                f"{name} accepts the new {_plural('value', len(added))} "
                + _names([repr(v) for v in added])
            )
        if removed and new_values:
            found.append(f"{name} no longer accepts " + _names([repr(v) for v in removed]))
    if before.axis != after.axis and before.axis is not None and after.axis is not None:
        found.append(f"{name} is now {after.axis.describe()}")
    return found


def _attributes(before: OpSpec, after: OpSpec) -> list[str]:
    old = {a.name: a for a in before.attributes}
    new = {a.name: a for a in after.attributes}
    found = []
    added = [a for a in new if a not in old]
    removed = [a for a in old if a not in new]
    if added:
        found.append(f"{_plural('attribute', len(added))} {_names(added)} added")
    if removed:
        found.append(f"{_plural('attribute', len(removed))} {_names(removed)} removed")
    for name, attribute in new.items():
        if name in old:
            found += _attribute_changes(old[name], attribute)
    return found


def _formals(
    kind: str, before: Sequence[FormalParameter], after: Sequence[FormalParameter]
) -> list[str]:
    old = {p.name: p for p in before}
    new = {p.name: p for p in after}
    found = []
    added = [p for p in new if p not in old]
    removed = [p for p in old if p not in new]
    if added:
        described = [
            f"`{p}`" + (f" ({new[p].option})" if new[p].option != "single" else "") for p in added
        ]
        found.append(f"{_plural(kind, len(added))} {', '.join(described)} added")
    if removed:
        found.append(f"{_plural(kind, len(removed))} {_names(removed)} removed")
    for name, param in new.items():
        if name not in old:
            continue
        was = old[name]
        if was.option != param.option:
            found.append(f"{kind} `{name}` became {param.option} (was {was.option})")
        elif param.option == "variadic" and was.min_arity != param.min_arity:
            found.append(
                f"{kind} `{name}` takes at least {param.min_arity} values (was {was.min_arity})"
            )
        if was.type_str != param.type_str:
            found.append(f"{kind} `{name}` is typed `{param.type_str}` (was `{was.type_str}`)")
    return found


def _constraints(before: Sequence[TypeConstraint], after: Sequence[TypeConstraint]) -> list[str]:
    old = {c.name: c for c in before}
    new = {c.name: c for c in after}
    found = []
    for name, constraint in new.items():
        if name not in old:
            found.append(f"type constraint `{name}` added: {_names(constraint.allowed)}")
            continue
        added = [t for t in constraint.allowed if t not in old[name].allowed]
        removed = [t for t in old[name].allowed if t not in constraint.allowed]
        if added:
            found.append(f"`{name}` widened with {_names(added)}")
        if removed:
            found.append(f"`{name}` narrowed: {_names(removed)} no longer allowed")
    gone = [name for name in old if name not in new]
    if gone:
        found.append(f"type {_plural('constraint', len(gone))} {_names(gone)} removed")
    return found


def changes_between(before: OpSpec, after: OpSpec) -> list[str]:
    """Each difference of ``after`` from ``before`` (the version before it), one sentence
    fragment each, in the order attributes, inputs, outputs, type constraints, status."""
    found = _attributes(before, after)
    found += _formals("input", before.inputs, after.inputs)
    found += _formals("output", before.outputs, after.outputs)
    found += _constraints(before.type_constraints, after.type_constraints)
    if after.deprecated and not before.deprecated:
        found.append("deprecated")
    if before.functions and not after.functions:
        found.append("no longer defined by a function body")
    elif after.functions and not before.functions:
        found.append("now defined by a function body")
    return found
