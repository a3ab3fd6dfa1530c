"""The project's own prose in the spec files: a summary per operator (and per version where it
changes), a change note per version.

The structural facts come from onnx.defs; the prose is written by the project. These tests keep
it present, short and in shape, and make sure none of it was copied from onnx's documentation:
no summary or change note may share a run of 8 or more consecutive words with the operator's
documentation (the operator doc and its attribute, input, output and type-constraint texts, in
every version), compared case-insensitively with punctuation stripped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from onnxcraft.specs.loader import default_spec_root

RUN = 8  # shared consecutive words that count as copied text
SUMMARY_CHARS = (30, 500)
CHANGE_CHARS = (10, 300)
STANDARD_DOMAINS = {"ai.onnx", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training"}

# a sentence ends at . ! or ? followed by whitespace or the end, but not inside an ellipsis
_SENTENCE_END = re.compile(r"(?<!\.)[.!?](?!\.)(?=\s|$)")
_WORD = re.compile(r"[a-z0-9]+")


def _documents() -> list[tuple[Path, dict[str, Any]]]:
    root = default_spec_root()
    return [(path, json.loads(path.read_text())) for path in sorted(root.glob("*/*.json"))]


DOCUMENTS = _documents()
IDS = [f"{doc['domain']}:{doc['name']}" for _, doc in DOCUMENTS]


def _sentences(text: str) -> int:
    return len(_SENTENCE_END.findall(text))


def _runs(text: str, n: int = RUN) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def _prose(document: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(where, text) for the summary and every change note of one spec file."""
    yield "summary", document.get("summary", "")
    for version in document["versions"]:
        if "summary" in version:
            yield f"summary of version {version['since_version']}", version["summary"]
        if "change" in version:
            yield f"change of version {version['since_version']}", version["change"]


@cache
def _onnx_runs() -> dict[tuple[str, str], set[tuple[str, ...]]]:
    """Word runs of onnx's documentation, per (domain folder, operator), over all versions."""
    defs = pytest.importorskip("onnx").defs
    runs: dict[tuple[str, str], set[tuple[str, ...]]] = {}
    for schema in defs.get_all_schemas_with_history():
        texts = [schema.doc or ""]
        texts += [attribute.description for attribute in schema.attributes.values()]
        texts += [param.description for param in (*schema.inputs, *schema.outputs)]
        texts += [constraint.description for constraint in schema.type_constraints]
        key = (schema.domain or "ai.onnx", schema.name)
        bucket = runs.setdefault(key, set())
        for text in texts:
            bucket |= _runs(text or "")
    return runs


def test_helpers() -> None:
    assert _sentences("One. Two! Three?") == 3
    assert _sentences("Counts 1.5 per x ... then stops.") == 1
    assert _runs("A-b c d e f g h, I") == {
        ("a", "b", "c", "d", "e", "f", "g", "h"),
        ("b", "c", "d", "e", "f", "g", "h", "i"),
    }


def test_the_copy_check_catches_copied_text() -> None:
    defs = pytest.importorskip("onnx").defs
    copied = " ".join(defs.get_schema("Gather", 13).doc.split()[:12]).upper() + "!"
    assert _runs(copied) & _onnx_runs()[("ai.onnx", "Gather")]


@pytest.mark.parametrize(("path", "document"), DOCUMENTS, ids=IDS)
def test_summary_is_one_to_three_sentences(path: Path, document: dict[str, Any]) -> None:
    summaries = [("summary", document.get("summary", ""))] + [
        (f"summary of version {version['since_version']}", version["summary"])
        for version in document["versions"]
        if "summary" in version
    ]
    for which, summary in summaries:
        where = f"{path.name} {which}"
        assert summary == summary.strip() and summary, f"{where}: empty"
        assert "\n" not in summary, f"{where}: spans several lines"
        low, high = SUMMARY_CHARS
        assert low <= len(summary) <= high, f"{where}: {len(summary)} characters"
        assert summary.endswith("."), f"{where}: does not end with a period"
        assert 1 <= _sentences(summary) <= 3, f"{where}: {_sentences(summary)} sentences"


@pytest.mark.parametrize(("path", "document"), DOCUMENTS, ids=IDS)
def test_a_version_summary_differs_from_the_one_it_replaces(
    path: Path, document: dict[str, Any]
) -> None:
    first, *_ = document["versions"]
    assert "summary" not in first, f"{path.name}: the operator's summary covers the first version"
    in_force = document.get("summary", "")
    for version in document["versions"]:
        if "summary" in version:
            where = f"{path.name} version {version['since_version']}"
            assert version["summary"] != in_force, f"{where}: repeats the summary in force"
            in_force = version["summary"]


@pytest.mark.parametrize(("path", "document"), DOCUMENTS, ids=IDS)
def test_every_later_version_has_a_one_line_change_note(
    path: Path, document: dict[str, Any]
) -> None:
    first, *later = document["versions"]
    assert "change" not in first, f"{path.name}: the first version has nothing to change from"
    low, high = CHANGE_CHARS
    for version in later:
        where = f"{path.name} version {version['since_version']}"
        change = version.get("change", "")
        assert change == change.strip() and change, f"{where}: no change note"
        assert "\n" not in change, f"{where}: the change note spans several lines"
        assert low <= len(change) <= high, f"{where}: change note of {len(change)} characters"


@pytest.mark.parametrize(("path", "document"), DOCUMENTS, ids=IDS)
def test_prose_is_not_copied_from_the_onnx_documentation(
    path: Path, document: dict[str, Any]
) -> None:
    theirs = _onnx_runs().get((document["domain"], document["name"]), set())
    for where, text in _prose(document):
        shared = _runs(text) & theirs
        assert not shared, (
            f"{path.name} {where} shares {RUN}+ consecutive words with onnx's documentation: "
            + "; ".join(sorted(" ".join(run) for run in shared))
        )
