"""The step between two versions of an operator that no adapter handles, read from the specs.

Most version bumps add element types, an optional input or output at the end, or an attribute
whose default keeps the old behaviour. Those steps need no adapter: upward the node stays as it
is; downward it must not use what the older version lacks. A default that changed is written
explicitly with the value the node meant. Anything else (an input that became an attribute, an
attribute whose type changed, a required input added) needs an adapter, and the step is refused
without one.
"""

from __future__ import annotations

from typing import Any

from onnxcraft import ir
from onnxcraft.ops.adapter_api import AdapterContext
from onnxcraft.specs.model import AttributeSpec, FormalParameter, OpSpec

__all__ = ["generic_step"]


def generic_step(
    ctx: AdapterContext, older: OpSpec, newer: OpSpec, upward: bool, *, adapted: bool = False
) -> None:
    """Rewrite ``ctx.node`` for the step between ``older`` and ``newer`` (either direction).

    After an adapter (``adapted``) this finishes the step: what the adapter left (a new
    attribute the older version lacks, say) is handled as for any step."""
    source, target = (older, newer) if upward else (newer, older)
    if not adapted:
        moved = {a.name for a in source.attributes} & {p.name for p in target.inputs}
        moved |= {p.name for p in source.inputs} & {a.name for a in target.attributes}
        if moved:
            ctx.fail(
                f"{sorted(moved)[0]!r} moved between attribute and input, and no adapter "
                f"is written for this step"
            )
    _inputs(ctx, source, target)
    _outputs(ctx, source, target)
    _attributes(ctx, source, target)


def _inputs(ctx: AdapterContext, source: OpSpec, target: OpSpec) -> None:
    used = ctx.node.inputs
    _parameters(ctx, "input", source.inputs, target.inputs, used)
    if len(used) > _most(target.inputs):
        ctx.fail(
            f"the node has {len(used)} inputs; version {target.since_version} takes at most "
            f"{_most(target.inputs)}"
        )


def _outputs(ctx: AdapterContext, source: OpSpec, target: OpSpec) -> None:
    used = ctx.node.outputs
    _parameters(ctx, "output", source.outputs, target.outputs, used)
    if len(used) > _most(target.outputs):
        extra = [name for name in used[_most(target.outputs) :] if name]
        if extra:
            ctx.fail(
                f"the node uses output {extra[0]!r}, which version {target.since_version} "
                f"does not have"
            )
        del used[_most(target.outputs) :]


def _most(params: tuple[FormalParameter, ...]) -> int:
    if params and params[-1].option == "variadic":
        return 1 << 30
    return len(params)


def _parameters(
    ctx: AdapterContext,
    kind: str,
    source: tuple[FormalParameter, ...],
    target: tuple[FormalParameter, ...],
    used: list[str],
) -> None:
    for index in range(max(len(source), len(target))):
        if index >= len(target):
            if any(used[index:]):
                ctx.fail(f"version {ctx.to_version} has no {kind} {index} (the node uses it)")
            return
        wanted = target[index]
        present = index < len(used) and bool(used[index])
        if index >= len(source):
            if wanted.option == "single" and not present:
                ctx.fail(
                    f"version {ctx.to_version} needs {kind} {wanted.name!r}, which "
                    f"version {ctx.from_version} does not have"
                )
            continue
        had = source[index]
        if (had.option == "variadic") != (wanted.option == "variadic"):
            ctx.fail(f"{kind} {wanted.name!r} changed between single and variadic")
        if wanted.option == "single" and not present:
            ctx.fail(
                f"{kind} {wanted.name!r} is required at version {ctx.to_version} and the node "
                f"omits it"
            )


def _attributes(ctx: AdapterContext, source: OpSpec, target: OpSpec) -> None:
    had = {a.name: a for a in source.attributes}
    wanted = {a.name: a for a in target.attributes}
    node = ctx.node
    for name, spec in had.items():
        attr = node.attribute(name)
        if name not in wanted:
            if attr is not None and not _is_default(attr, spec):
                ctx.fail(
                    f"attribute {name!r} (set to {_show(attr.value)}) does not exist at "
                    f"version {ctx.to_version}"
                )
            ctx.drop_attr(name)
            continue
        new = wanted[name]
        if new.type != spec.type:
            ctx.fail(f"attribute {name!r} changed type from {spec.type} to {new.type}")
        if attr is None and _plain(spec.default) != _plain(new.default):
            if spec.default is None:
                if new.default is not None or new.required:
                    ctx.fail(
                        f"attribute {name!r} has no default at version {ctx.from_version} and "
                        f"one at version {ctx.to_version}"
                    )
            else:
                ctx.set_attr(name, spec.type, spec.default)
    for name, new in wanted.items():
        if name in had:
            continue
        if new.required and node.attribute(name) is None:
            ctx.fail(
                f"version {ctx.to_version} requires the attribute {name!r}, which "
                f"version {ctx.from_version} does not have"
            )


def _plain(value: Any) -> Any:
    if isinstance(value, float):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _is_default(attr: ir.Attribute, spec: AttributeSpec) -> bool:
    if attr.ref or spec.default is None or isinstance(spec.default, dict):
        return False
    value = attr.value
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return bool(_plain(value) == _plain(spec.default))


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."
