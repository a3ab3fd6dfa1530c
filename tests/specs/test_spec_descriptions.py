"""What the specs say things mean: descriptions, allowed values, axis bounds, examples.

Every input, output and attribute of every version of every standard operator has a
description in the project's own words; every attribute whose value comes from a fixed set
lists the set with a meaning per value; every axis attribute says which input's rank bounds
it; every version that is not deprecated has examples in force, each giving its recorded
outputs in onnxcraft's evaluator at every version it covers, and the same outputs in
onnxruntime where onnxruntime runs the example (departures listed with reasons in
``example_departures.json``). None of the text may share a run of 8 words with onnx's
documentation of the operator (the rule of ``test_spec_prose.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from onnxcraft.specs.loader import default_spec_root, load_file
from onnxcraft.specs.model import OpSpec
from onnxcraft.testing.conformance.judge import AGREE, BACKEND_REFUSED, judge
from onnxcraft.testing.conformance.onnxruntime_backend import OnnxruntimeBackend
from onnxcraft.testing.conformance.worker import Worker
from onnxcraft.testing.examples import example_of
from onnxcraft.testing.spec_examples import examples_at, mismatches
from tests.specs.test_spec_prose import DOCUMENTS, IDS, RUN, _onnx_runs, _runs

DESCRIPTION_CHARS = (20, 600)
DEPARTURES = Path(__file__).with_name("example_departures.json")

# STRING attributes that hold free text or user data rather than a mode
FREE_TEXT = frozenset({
    "cats_strings", "classes_strings", "classlabels_strings", "default_string", "delimiter",
    "equation", "keys_strings", "locale", "pattern", "pool_strings", "stopwords",
    "string_vocabulary", "value_string", "value_strings", "values_strings", "xs", "y", "zs",
})  # fmt: skip
# integer attributes whose values are codes with a meaning each
INTEGER_CODES = frozenset({
    "aggregate_function", "batch_axis", "center_point_box", "layout", "nodes_modes",
    "post_transform", "qk_matmul_output_mode", "scan_input_directions",
    "scan_output_directions", "time_axis",
})  # fmt: skip
AXIS_NAMES = frozenset({"axis", "axes"})
# axis attributes not bounded by an input's rank in every model, with the reason
UNBOUNDED_AXES = {
    ("QuantizeLinear", "axis"): "ignored for a per-tensor (scalar) scale, any value then runs",
    ("DequantizeLinear", "axis"): "ignored for a per-tensor (scalar) scale, any value then runs",
}

# words that say nothing about a particular input, output or attribute
_FILLER = frozenset({
    "a", "an", "the", "of", "to", "is", "are", "this", "that", "it", "its", "for", "and", "or",
    "in", "on", "as", "be", "by", "with", "named", "called", "given", "optional", "input",
    "inputs", "output", "outputs", "tensor", "tensors", "attribute", "attributes", "value",
    "values", "operator", "node",
})  # fmt: skip
_WORD = re.compile(r"[a-z0-9]+")


def _specs(path: Path) -> tuple[OpSpec, ...]:
    return load_file(path, default_spec_root())


def _entries(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(where, kind, entry) for every input, output and attribute of every version."""
    for version in document["versions"]:
        for kind in ("inputs", "outputs", "attributes"):
            for entry in version.get(kind, []):
                yield f"version {version['since_version']} {kind[:-1]} {entry['name']}", kind, entry


def _texts(document: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(where, text) for every piece of the project's prose this test governs."""
    for where, _, entry in _entries(document):
        yield f"{where} description", entry.get("description", "")
        for item in entry.get("values", []):
            yield f"{where} value {item['value']!r}", item.get("meaning", "")
    for version in document["versions"]:
        for index, example in enumerate(version.get("examples", [])):
            yield f"version {version['since_version']} example {index + 1} title", example["title"]


def _says_something(text: str, name: str, type_text: str) -> bool:
    own = set(_WORD.findall(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()))
    own |= set(_WORD.findall(type_text.lower()))
    return len([w for w in _WORD.findall(text.lower()) if w not in _FILLER | own]) >= 3


def test_the_filler_check_refuses_empty_descriptions() -> None:
    assert not _says_something("The input tensor.", "X", "T")
    assert not _says_something("The axis attribute value.", "axis", "INT")
    assert not _says_something("Tensor of type T.", "input", "T")
    assert _says_something("Pads before and after each spatial axis.", "pads", "INTS")


@pytest.mark.parametrize(("path", "document"), DOCUMENTS, ids=IDS)
def test_every_input_output_and_attribute_is_described(
    path: Path, document: dict[str, Any]
) -> None:
    problems = []
    low, high = DESCRIPTION_CHARS
    for where, _, entry in _entries(document):
        text = entry.get("description", "")
        if not text:
            problems.append(f"{where}: no description")
        elif "\n" in text or text != text.strip() or not text.endswith("."):
            problems.append(f"{where}: not one line ending with a period: {text!r}")
        elif not low <= len(text) <= high:
            problems.append(f"{where}: {len(text)} characters")
        elif not _says_something(text, entry["name"], entry["type"]):
            problems.append(f"{where}: only restates the name or the type: {text!r}")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize(("path", "document"), DOCUMENTS, ids=IDS)
def test_enumerated_attributes_list_their_values(path: Path, document: dict[str, Any]) -> None:
    problems = []
    for where, kind, entry in _entries(document):
        if kind != "attributes":
            continue
        values = entry.get("values", [])
        name, type_name = entry["name"], entry["type"]
        enumerated = (type_name in ("STRING", "STRINGS") and name not in FREE_TEXT) or (
            name in INTEGER_CODES
        )
        if enumerated and not values:
            problems.append(f"{where}: enumerated ({type_name}) but lists no values")
        listed = [item["value"] for item in values]
        if len(set(listed)) != len(listed):
            problems.append(f"{where}: values repeated in {listed}")
        for item in values:
            if not item.get("meaning", "").strip().endswith("."):
                problems.append(f"{where}: value {item['value']!r} has no meaning sentence")
            wanted = str if type_name.startswith("STRING") else int
            if not isinstance(item["value"], wanted) or isinstance(item["value"], bool):
                problems.append(f"{where}: value {item['value']!r} is not a {wanted.__name__}")
        default = entry.get("default")
        if values and default is not None and not isinstance(default, dict):
            given = default if isinstance(default, list) else [default]
            outside = [v for v in given if v not in listed]
            if outside:
                problems.append(f"{where}: the default {default!r} is outside {listed}")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize(("path", "document"), DOCUMENTS, ids=IDS)
def test_axis_attributes_name_the_input_that_bounds_them(
    path: Path, document: dict[str, Any]
) -> None:
    problems = []
    for version in document["versions"]:
        inputs = {p["name"] for p in version["inputs"]}
        ints = {a["name"] for a in version["attributes"] if a["type"] == "INT"}
        for entry in version["attributes"]:
            where = f"version {version['since_version']} attribute {entry['name']}"
            axis = entry.get("axis")
            if axis is None:
                unbounded = (document["name"], entry["name"]) in UNBOUNDED_AXES
                if (
                    entry["name"] in AXIS_NAMES
                    and entry["type"] in ("INT", "INTS")
                    and not unbounded
                ):
                    problems.append(f"{where}: an axis attribute without an 'axis' bound")
                continue
            if axis["input"] not in inputs:
                problems.append(f"{where}: bounded by {axis['input']!r}, not an input")
            plus = axis.get("rank_plus", 0)
            if isinstance(plus, str) and plus != "count" and plus not in ints:
                problems.append(f"{where}: rank_plus {plus!r} is not an INT attribute")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize(("path", "document"), DOCUMENTS, ids=IDS)
def test_the_new_prose_is_not_copied_from_the_onnx_documentation(
    path: Path, document: dict[str, Any]
) -> None:
    theirs = _onnx_runs().get((document["domain"], document["name"]), set())
    copied = []
    for where, text in _texts(document):
        shared = _runs(text) & theirs
        if shared:
            copied.append(f"{where}: " + "; ".join(sorted(" ".join(run) for run in shared)))
    assert not copied, (
        f"{path.name} shares {RUN}+ consecutive words with onnx's documentation:\n  "
        + "\n  ".join(copied)
    )


@pytest.mark.parametrize(("path", "document"), DOCUMENTS, ids=IDS)
def test_every_version_has_examples_giving_their_recorded_outputs(
    path: Path, document: dict[str, Any]
) -> None:
    problems = []
    for spec in _specs(path):
        if spec.deprecated:
            continue  # a deprecated version cannot be evaluated; nothing to show
        if not spec.examples:
            problems.append(f"version {spec.since_version}: no example in force")
            continue
        problems.extend(mismatches(spec))
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


# -- onnxruntime ---------------------------------------------------------------------------------


def _departures() -> dict[str, str]:
    return dict(json.loads(DEPARTURES.read_text())) if DEPARTURES.is_file() else {}


@pytest.fixture(scope="module")
def onnxruntime_worker() -> Iterator[Any]:
    pytest.importorskip("onnxruntime")
    backend = OnnxruntimeBackend()
    with Worker(backend, timeout=60) as worker:
        yield backend, worker


@pytest.mark.parametrize(("path", "document"), DOCUMENTS, ids=IDS)
def test_onnxruntime_gives_the_recorded_outputs(
    path: Path, document: dict[str, Any], onnxruntime_worker: Any
) -> None:
    backend, worker = onnxruntime_worker
    departures = _departures()
    problems = []
    for spec in _specs(path):
        if spec.deprecated or spec.since_version != spec.examples_since:
            continue  # each example once, at the version it was written for
        if not spec.deterministic:
            continue  # random operators: the values depend on the runtime's generator
        for example in examples_at(spec):
            key = f"{document['domain']}::{spec.name}-{spec.since_version}#{example.index + 1}"
            built = example_of(example.case, backend.profile)
            feeds = built.feeds_as(backend.representation)
            verdict = judge(built, worker.run(built.model, feeds, built.outputs))
            if verdict.kind in (AGREE, BACKEND_REFUSED):
                if key in departures and verdict.kind == AGREE:
                    problems.append(f"{key}: listed as a departure but onnxruntime agrees now")
                continue
            if key not in departures:
                problems.append(f"{key} ({example.title}): {verdict.kind}: {verdict.detail}")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)
