"""ONNX type strings ("tensor(float)", "seq(tensor(int64))", "map(string, tensor(float))").

Specs describe allowed types with these strings; this module turns them into value types and
back. Parsed results are cached: specs repeat the same few dozen strings everywhere.
"""

from __future__ import annotations

from functools import cache

from onnxcraft.dtypes import ElementType, from_type_string, type_string
from onnxcraft.errors import SpecError
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType

__all__ = ["parse_type_string", "type_to_string", "matches"]


@cache
def parse_type_string(text: str) -> ValueType:
    """Parse one type string; shapes are left unknown."""
    result, rest = _parse(text.replace(" ", ""))
    if rest:
        raise SpecError(f"type string {text!r}: unexpected trailing text {rest!r}")
    return result


def _elem(name: str, text: str) -> ElementType:
    try:
        return from_type_string(name)
    except (KeyError, ValueError) as exc:
        raise SpecError(f"type string {text!r}: unknown element type {name!r}") from exc


def _parse(text: str) -> tuple[ValueType, str]:
    head, sep, rest = text.partition("(")
    if not sep:
        raise SpecError(f"type string {text!r}: expected kind(...)")
    if head in ("tensor", "sparse_tensor"):
        name, close, rest = rest.partition(")")
        if not close:
            raise SpecError(f"type string {text!r}: missing ')'")
        elem = _elem(name, text)
        return (Tensor(elem) if head == "tensor" else SparseTensor(elem)), rest
    if head in ("seq", "sequence", "optional"):
        inner, rest = _parse(rest)
        if not rest.startswith(")"):
            raise SpecError(f"type string {text!r}: missing ')'")
        value: ValueType = Sequence(inner) if head != "optional" else Optional(inner)
        return value, rest[1:]
    if head == "map":
        key, comma, rest = rest.partition(",")
        if not comma:
            raise SpecError(f"type string {text!r}: map needs a key and a value type")
        inner, rest = _map_value(rest, text)
        if not rest.startswith(")"):
            raise SpecError(f"type string {text!r}: missing ')'")
        return Map(_elem(key, text), inner), rest[1:]
    raise SpecError(f"type string {text!r}: unknown kind {head!r}")


def _map_value(rest: str, text: str) -> tuple[ValueType, str]:
    """A map's value type: a full type string, or a bare element name (``map(string, float)``,
    as ONNX writes the maps of ZipMap and DictVectorizer), which stands for a scalar tensor."""
    bracket, close = rest.find("("), rest.find(")")
    if close >= 0 and (bracket < 0 or close < bracket):
        return Tensor(_elem(rest[:close], text)), rest[close:]
    return _parse(rest)


def type_to_string(value: ValueType | None) -> str:
    """The type string of a value type, ignoring shapes ('?' for unknown parts)."""
    if value is None:
        return "?"
    if isinstance(value, (Tensor, SparseTensor)):
        kind = "tensor" if isinstance(value, Tensor) else "sparse_tensor"
        elem = "?" if value.elem_type is None else type_string(value.elem_type)
        return f"{kind}({elem})"
    if isinstance(value, Sequence):
        return f"seq({type_to_string(value.elem)})"
    if isinstance(value, Optional):
        return f"optional({type_to_string(value.elem)})"
    return f"map({type_string(value.key)},{type_to_string(value.value)})"


def matches(actual: ValueType | None, allowed: ValueType) -> bool:
    """True if ``actual`` may be of type ``allowed`` (unknown parts match anything)."""
    if actual is None:
        return True
    if isinstance(allowed, (Tensor, SparseTensor)):
        return type(actual) is type(allowed) and (
            actual.elem_type is None or actual.elem_type == allowed.elem_type
        )
    if isinstance(allowed, Sequence):
        return isinstance(actual, Sequence) and (
            actual.elem is None or allowed.elem is None or matches(actual.elem, allowed.elem)
        )
    if isinstance(allowed, Optional):
        return isinstance(actual, Optional) and (
            actual.elem is None or allowed.elem is None or matches(actual.elem, allowed.elem)
        )
    return (
        isinstance(actual, Map)
        and actual.key == allowed.key
        and (actual.value is None or allowed.value is None or matches(actual.value, allowed.value))
    )
