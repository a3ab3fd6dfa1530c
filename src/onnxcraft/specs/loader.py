"""Reading spec files: one JSON file per operator, holding every version of it.

Files are found under a spec root (``opset_specs/`` of the source tree, or the copy a wheel
installs as ``onnxcraft/opset_specs``) in one folder per domain. Each file is read on first
use and validated against ``spec.schema.json``; errors name the file and the field.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from onnxcraft.errors import SpecError
from onnxcraft.specs.model import (
    AllowedValue,
    AttributeSpec,
    AxisBound,
    FormalParameter,
    FunctionBody,
    OpSpec,
    TypeConstraint,
)
from onnxcraft.specs.validate import schema_errors

__all__ = ["DOMAIN_FOLDERS", "default_spec_root", "load_file", "read_schema"]

# Spec folder of each domain; "" (the default domain) is stored as "ai.onnx".
DOMAIN_FOLDERS = {"": "ai.onnx"}


def default_spec_root() -> Path:
    """opset_specs/ of an installed wheel, else of the source checkout."""
    package = Path(__file__).resolve().parent.parent
    installed = package / "opset_specs"
    if installed.is_dir():
        return installed
    return package.parent.parent / "opset_specs"


@cache
def read_schema(root: Path) -> dict[str, Any]:
    path = root / "spec.schema.json"
    if not path.is_file():
        path = default_spec_root() / "spec.schema.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _domain(folder_domain: str) -> str:
    return "" if folder_domain == "ai.onnx" else folder_domain


def _formal(item: dict[str, Any]) -> FormalParameter:
    return FormalParameter(
        name=item["name"],
        type_str=item["type"],
        option=item.get("option", "single"),
        homogeneous=item.get("homogeneous", True),
        min_arity=item.get("min_arity", 1),
        differentiability=item.get("differentiability", "unknown"),
        description=item.get("description", ""),
    )


def _attribute(item: dict[str, Any]) -> AttributeSpec:
    axis = item.get("axis")
    return AttributeSpec(
        item["name"],
        item["type"],
        item.get("required", False),
        item.get("default"),
        item.get("description", ""),
        tuple(AllowedValue(v["value"], v.get("meaning", "")) for v in item.get("values", [])),
        None
        if axis is None
        else AxisBound(axis["input"], axis.get("rank_plus", 0), axis.get("end_inclusive", False)),
    )


def _version(
    domain: str,
    name: str,
    summary: str,
    v: dict[str, Any],
    examples: tuple[tuple[dict[str, Any], ...], int],
) -> OpSpec:
    return OpSpec(
        domain=domain,
        name=name,
        since_version=v["since_version"],
        summary=summary,
        change=v.get("change", ""),
        deprecated=v.get("deprecated", False),
        support_level=v.get("support_level", "COMMON"),
        deterministic=v.get("deterministic", True),
        inputs=tuple(_formal(p) for p in v.get("inputs", [])),
        outputs=tuple(_formal(p) for p in v.get("outputs", [])),
        attributes=tuple(_attribute(a) for a in v.get("attributes", [])),
        type_constraints=tuple(
            TypeConstraint(t["name"], tuple(t["allowed"]), t.get("description", ""))
            for t in v.get("type_constraints", [])
        ),
        min_inputs=v.get("min_inputs", 0),
        max_inputs=v.get("max_inputs", 0),
        min_outputs=v.get("min_outputs", 0),
        max_outputs=v.get("max_outputs", 0),
        functions=tuple(
            FunctionBody(
                f["opset"], tuple(sorted(f.get("opset_imports", {}).items())), tuple(f["nodes"])
            )
            for f in v.get("functions", [])
        ),
        context_dependent_function=v.get("context_dependent_function", False),
        examples=examples[0],
        examples_since=examples[1],
    )


def load_file(path: Path, root: Path) -> tuple[OpSpec, ...]:
    """Every version in one spec file, validated, oldest first."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{path}: cannot read spec file: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise SpecError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    errors = schema_errors(document, read_schema(root))
    if errors:
        raise SpecError(f"{path}: " + "; ".join(errors[:5]) + (" ..." if len(errors) > 5 else ""))
    if document["name"] != path.stem:
        raise SpecError(f"{path}: name {document['name']!r} does not match the file name")
    domain = _domain(document["domain"])
    versions = sorted(document["versions"], key=lambda v: v["since_version"])
    seen = [v["since_version"] for v in versions]
    if len(set(seen)) != len(seen):
        raise SpecError(f"{path}: versions: since_version repeated in {seen}")
    specs = []
    summary = document.get("summary", "")
    examples: tuple[tuple[dict[str, Any], ...], int] = ((), 0)
    for version in versions:
        # A version's own summary (and examples) hold from that version on, until a later
        # one gives its own.
        summary = version.get("summary", summary)
        if "examples" in version:
            examples = (tuple(version["examples"]), version["since_version"])
        specs.append(_version(domain, document["name"], summary, version, examples))
    return tuple(specs)
