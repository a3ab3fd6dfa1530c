"""A generated function's docstring describes its own version of the operator.

The prose of a docstring (the summary in force at the version, then the version's change note)
may name only inputs, outputs and attributes that the version has; the change note may also name
what the previous version had (what it renamed or removed). A name counts as named when it is
written in backticks (any identifier inside them: `repeats[i]` names repeats), or as a plain
word shaped like an identifier (with an underscore, such as round_mode), and it is a parameter
of some version of the operator.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from functools import cache

import pytest

from onnxcraft import specs
from onnxcraft.specs.model import OpSpec
from tests.codegen._generated import definitions, modules

_NAMED = re.compile(r"`([^`]+)`|\b([A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*)\b")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CHANGE = re.compile(r"\n\s*Changed in version \d+: ")


def _parameters(spec: OpSpec) -> set[str]:
    return {p.name for p in (*spec.inputs, *spec.outputs, *spec.attributes)}


@cache
def _history() -> dict[tuple[str, str], tuple[OpSpec, ...]]:
    versions: dict[tuple[str, str], list[OpSpec]] = defaultdict(list)
    for spec in specs.schemas():
        versions[(spec.domain, spec.name)].append(spec)
    return {key: tuple(sorted(v, key=lambda s: s.since_version)) for key, v in versions.items()}


def _named(text: str, candidates: set[str]) -> set[str]:
    found: set[str] = set()
    for ticked, plain in _NAMED.findall(text):
        # inside backticks every identifier counts: `repeats[i]` names repeats
        found.update(_IDENTIFIER.findall(ticked) if ticked else [plain])
    return found & candidates


def misnamed(docstring: str, spec: OpSpec) -> set[str]:
    """Parameters of other versions that the docstring's prose names but ``spec`` lacks."""
    history = _history()[(spec.domain, spec.name)]
    everywhere = set().union(*map(_parameters, history))
    earlier = [s for s in history if s.since_version < spec.since_version]
    previous = _parameters(earlier[-1]) if earlier else set()
    own = _parameters(spec)
    prose = docstring.split("\n\nSignature:", 1)[0]
    summary, _, change = _CHANGE.sub("\0", prose, count=1).partition("\0")
    return (_named(summary, everywhere) - own) | (_named(change, everywhere) - own - previous)


def test_the_check_catches_a_later_attribute_in_an_earlier_docstring() -> None:
    cast_21 = specs.get("Cast", opset=21)
    cast_24 = specs.get("Cast", opset=24)
    assert "round_mode" in cast_24.summary
    docstring = f"{cast_24.summary}\n\nChanged in version 21: {cast_21.change}\n\nSignature: ..."
    assert misnamed(docstring, cast_21) == {"round_mode"}
    plain = "Converts to `to`; round_mode picks the rounding.\n\nSignature: ..."
    assert misnamed(plain, cast_21) == {"round_mode"}
    tile_1 = specs.get("Tile", opset=1)
    assert misnamed("Repeats `repeats[i]` times.\n\nSignature: ...", tile_1) == {"repeats"}
    # a change note may name what the previous version had
    pad_2 = specs.get("Pad", opset=2)
    assert misnamed(f"{pad_2.summary}\n    Changed in version 2: {pad_2.change}", pad_2) == set()
    assert misnamed("Fills by `paddings`.\n\nSignature: ...", pad_2) == {"paddings"}


@pytest.mark.parametrize(("domain", "opset"), list(modules()))
def test_every_docstring_names_only_what_its_version_has(domain: str, opset: int) -> None:
    wrong = []
    for name, definition in definitions(domain, opset).items():
        spec = specs.get(name, domain=domain, opset=opset)
        docstring = ast.get_docstring(definition) or ""
        extra = misnamed(docstring, spec)
        if extra:
            wrong.append(f"{name} (version {spec.since_version}) names {sorted(extra)}")
    assert not wrong, "; ".join(wrong)
