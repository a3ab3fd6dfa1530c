"""A validator for the subset of JSON Schema that opset_specs/spec.schema.json uses.

Supported keywords: type, required, properties, additionalProperties, items, enum, minimum.
Errors name the file and the path of the offending field (``versions[2].inputs[0].option``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["schema_errors"]

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _type_ok(value: Any, expected: str | list[str]) -> bool:
    names = [expected] if isinstance(expected, str) else expected
    for name in names:
        if name in ("integer", "number") and isinstance(value, bool):
            continue
        if isinstance(value, _TYPES[name]):
            return True
    return False


def schema_errors(value: Any, schema: dict[str, Any], path: str = "") -> list[str]:
    """Every way ``value`` breaks ``schema``, as 'path: message' strings."""
    where = path or "(top level)"
    if "type" in schema and not _type_ok(value, schema["type"]):
        return [f"{where}: expected {schema['type']}, got {type(value).__name__}"]
    errors: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        errors.append(f"{where}: {value} is below the minimum {schema['minimum']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{where}: missing required field {key!r}")
        properties = schema.get("properties", {})
        for key, item in value.items():
            child = f"{path}.{key}" if path else key
            if key in properties:
                errors.extend(schema_errors(item, properties[key], child))
            elif schema.get("additionalProperties") is False:
                errors.append(f"{child}: unknown field")
            elif isinstance(schema.get("additionalProperties"), dict):
                errors.extend(schema_errors(item, schema["additionalProperties"], child))
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            errors.extend(schema_errors(item, schema["items"], f"{path}[{index}]"))
    return errors
