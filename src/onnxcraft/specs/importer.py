"""Refresh opset_specs/ from ``onnx.defs`` (a development tool; needs onnx installed).

    python -m onnxcraft.specs.importer [--out opset_specs]

Structural facts (versions, inputs, outputs, type constraints, attributes and defaults,
function bodies) are taken from the installed onnx. The project's own prose already in the
files — each operator's ``summary``, each version's own ``summary``, ``change`` note and
``examples``, and any ``description``, allowed ``values`` and ``axis`` bound — is kept, so
a new ONNX release is one command plus a review of the diff.
Documentation text of onnx is never copied.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import onnx
from onnx import defs, helper, numpy_helper

from onnxcraft.specs.loader import DOMAIN_FOLDERS, default_spec_root

_OPTION = {0: "single", 1: "optional", 2: "variadic"}
_DIFF = {0: "unknown", 1: "differentiable", 2: "non-differentiable"}


def _json_value(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, onnx.TensorProto):
        array = numpy_helper.to_array(value)
        dtype = helper.tensor_dtype_to_string(value.data_type).replace("TensorProto.", "").lower()
        values = [v.decode() if isinstance(v, bytes) else v for v in array.reshape(-1).tolist()]
        return {"dtype": dtype, "dims": list(array.shape), "values": values}
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    if isinstance(value, float):
        return float(value)
    return value


def _attribute_value(attr: onnx.AttributeProto) -> Any:
    if attr.type == onnx.AttributeProto.GRAPH:
        raise ValueError("graph-valued attributes have no JSON form")
    return _json_value(helper.get_attribute_value(attr))


def _formal(param: Any) -> dict[str, Any]:
    return {
        "name": param.name,
        "type": param.type_str,
        "option": _OPTION[int(param.option)],
        "homogeneous": bool(param.is_homogeneous),
        "min_arity": int(param.min_arity),
        "differentiability": _DIFF[int(param.differentiation_category)],
    }


def _attribute(name: str, attr: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "type": attr.type.name, "required": bool(attr.required)}
    if attr.default_value.type:
        entry["default"] = _attribute_value(attr.default_value)
    return entry


def _node(node: onnx.NodeProto) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "op_type": node.op_type,
        "inputs": list(node.input),
        "outputs": list(node.output),
    }
    if node.domain:
        entry["domain"] = node.domain
    attributes = []
    for attr in node.attribute:
        item: dict[str, Any] = {
            "name": attr.name,
            "type": onnx.AttributeProto.AttributeType.Name(attr.type),
        }
        if attr.ref_attr_name:
            item["ref"] = attr.ref_attr_name
        else:
            item["value"] = _attribute_value(attr)
        attributes.append(item)
    if attributes:
        entry["attributes"] = attributes
    return entry


def _functions(schema: Any) -> list[dict[str, Any]]:
    bodies = []
    for opset in schema.function_opset_versions:
        raw = schema.get_function_with_opset_version(opset)
        body = onnx.FunctionProto.FromString(raw) if isinstance(raw, bytes) else raw
        if body is None or not len(body.node):
            continue
        try:
            nodes = [_node(n) for n in body.node]
        except ValueError:
            continue  # a body with graph attributes: evaluated through its kernel instead
        bodies.append(
            {
                "opset": int(opset),
                "opset_imports": {o.domain: int(o.version) for o in body.opset_import},
                "nodes": nodes,
            }
        )
    return bodies


def _version(schema: Any, previous: dict[str, Any] | None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "since_version": int(schema.since_version),
        "deprecated": bool(schema.deprecated),
        "support_level": schema.support_level.name,
        "deterministic": schema.node_determinism.name != "NonDeterministic",
        "inputs": [_formal(p) for p in schema.inputs],
        "outputs": [_formal(p) for p in schema.outputs],
        "type_constraints": [
            {"name": tc.type_param_str, "allowed": list(tc.allowed_type_strs)}
            for tc in schema.type_constraints
        ],
        "attributes": [_attribute(n, a) for n, a in sorted(schema.attributes.items())],
        "min_inputs": int(schema.min_input),
        "max_inputs": int(min(schema.max_input, 2**31 - 1)),
        "min_outputs": int(schema.min_output),
        "max_outputs": int(min(schema.max_output, 2**31 - 1)),
    }
    functions = _functions(schema)
    if functions:
        entry["functions"] = functions
    if schema.has_context_dependent_function:
        entry["context_dependent_function"] = True
    if previous:
        _keep_prose(entry, previous)
    return entry


# what the project writes beside each input, output and attribute
_OWN_FIELDS = ("description", "values", "axis")


def _keep_prose(entry: dict[str, Any], previous: dict[str, Any]) -> None:
    """Carry the project's own words over from the existing file."""
    if previous.get("summary"):
        entry["summary"] = previous["summary"]
    if previous.get("change"):
        entry["change"] = previous["change"]
    if previous.get("examples"):
        entry["examples"] = previous["examples"]
    for key in ("inputs", "outputs", "attributes", "type_constraints"):
        old = {p["name"]: p for p in previous.get(key, [])}
        for item in entry[key]:
            for field in _OWN_FIELDS:
                if old.get(item["name"], {}).get(field):
                    item[field] = old[item["name"]][field]


def import_specs(out: Path) -> int:
    grouped: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for schema in defs.get_all_schemas_with_history():
        grouped[(schema.domain, schema.name)].append(schema)
    written = 0
    for (domain, name), schemas in sorted(grouped.items()):
        folder = out / DOMAIN_FOLDERS.get(domain, domain)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.json"
        old = json.loads(path.read_text()) if path.exists() else {}
        old_versions = {v["since_version"]: v for v in old.get("versions", [])}
        document = {
            "domain": DOMAIN_FOLDERS.get(domain, domain),
            "name": name,
            "summary": old.get("summary", ""),
            "versions": [
                _version(s, old_versions.get(int(s.since_version)))
                for s in sorted(schemas, key=lambda s: s.since_version)
            ],
        }
        text = json.dumps(document, indent=2, sort_keys=False, ensure_ascii=False) + "\n"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            written += 1
    latest: dict[str, int] = {}
    for (domain, _), schemas in grouped.items():
        domain_folder = DOMAIN_FOLDERS.get(domain, domain)
        newest = max(int(s.since_version) for s in schemas)
        latest[domain_folder] = max(latest.get(domain_folder, 0), newest)
    latest["ai.onnx"] = max(latest["ai.onnx"], defs.onnx_opset_version())
    latest["ai.onnx.ml"] = max(latest["ai.onnx.ml"], defs.onnx_ml_opset_version())
    latest = dict(sorted(latest.items()))
    (out / "domains.json").write_text(json.dumps(latest, indent=2) + "\n")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m onnxcraft.specs.importer", description=__doc__)
    parser.add_argument("--out", type=Path, default=default_spec_root())
    args = parser.parse_args(argv)
    count = import_specs(args.out)
    print(f"onnx {onnx.__version__}: {count} spec files written under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
