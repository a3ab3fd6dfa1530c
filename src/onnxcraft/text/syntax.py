"""The words of the ONNX text syntax that the printer and the parser share."""

from __future__ import annotations

import re

from onnxcraft import ir
from onnxcraft.dtypes import ElementType, type_string

__all__ = [
    "ATTRIBUTE_TYPES",
    "attribute_name_text",
    "ATTRIBUTE_TYPE_NAMES",
    "ELEMENT_NAMES",
    "ELEMENT_TYPES",
    "FLOAT_WORDS",
    "TYPE_KEYWORDS",
    "UNDEFINED_ELEMENT",
    "is_plain_name",
    "name_text",
    "quote",
]

# The element types by their names in the text: the names of ONNX type strings (``float``,
# ``float8e4m3fn``, ``int4`` ...), which are onnx's parser's names for every type it knows.
ELEMENT_NAMES: dict[ElementType, str] = {
    elem: type_string(elem) for elem in ElementType if elem != ElementType.UNDEFINED
}
ELEMENT_TYPES: dict[str, ElementType] = {name: elem for elem, name in ELEMENT_NAMES.items()}
# A tensor type whose element type is not known: onnx's printer writes ``undefined``.
UNDEFINED_ELEMENT = "undefined"

# IR attribute type (AttributeProto.AttributeType's name) <-> the word written after ``name:``.
ATTRIBUTE_TYPE_NAMES: dict[str, str] = {kind: kind.lower() for kind in ir.ATTRIBUTE_TYPES}
ATTRIBUTE_TYPES: dict[str, str] = {word: kind for kind, word in ATTRIBUTE_TYPE_NAMES.items()}

# Words that start a type other than a tensor's.
TYPE_KEYWORDS = frozenset({"seq", "map", "optional", "sparse_tensor", "opaque"})
# Words onnx's parser reads as float values where a value may stand (any letter case).
FLOAT_WORDS = frozenset({"inf", "infinity", "nan"})

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def is_plain_name(name: str) -> bool:
    """Can ``name`` be written without quotes everywhere a name stands? Not when it could be
    read as something else: a type name (``float``), a type keyword or a float word."""
    return (
        _PLAIN.match(name) is not None
        and name not in ELEMENT_TYPES
        and name not in TYPE_KEYWORDS
        and name.lower() not in FLOAT_WORDS
        and name != UNDEFINED_ELEMENT
    )


def quote(text: str) -> str:
    """A string literal: backslash and double quote escaped by a backslash, as onnx's reads it."""
    if "\\" in text or '"' in text:
        text = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def attribute_name_text(name: str) -> str:
    """An attribute's name as written: plain whenever it is an identifier, since onnx's
    parser reads an attribute's name as an identifier only (and never as a type there)."""
    return name if _PLAIN.match(name) is not None else quote(name)


def name_text(name: str) -> str:
    """A name as written: plain when it can be, else quoted."""
    return name if is_plain_name(name) else quote(name)
