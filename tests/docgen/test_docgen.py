"""The generated operator reference is fresh and says what the code does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from onnxcraft import specs
from onnxcraft.convert.listing import conversions
from onnxcraft.docgen.build import DOCS_DIR, coverage_of, generate
from onnxcraft.evaluate.kernels import default_registry

REPO = Path(__file__).resolve().parents[2]


def test_operator_pages_are_fresh() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "onnxcraft.docgen", "--check"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_every_operator_has_a_page_with_every_version() -> None:
    pages = generate()
    for spec in specs.schemas():
        label = spec.domain or "ai.onnx"
        page = pages[f"{label}/{spec.name}.md"]
        assert f"## Version {spec.since_version}\n" in page
        assert f"`{label}@{spec.since_version}::{spec.name}`" in page


def test_coverage_follows_the_kernel_table() -> None:
    kernels = default_registry()
    for spec in specs.schemas():
        coverage = coverage_of(spec)
        assert (coverage.evaluator == "kernel") == (spec.key in kernels)
        if coverage.evaluator == "none":
            assert not spec.functions


def test_the_index_links_every_page() -> None:
    index = (DOCS_DIR / "README.md").read_text(encoding="utf-8")
    for rel in generate():
        if rel.endswith(".md") and rel != "README.md":
            assert f"]({rel})" in index


def test_each_page_lists_the_conversions_of_its_operator() -> None:
    """Issue 12: the reference says, per operator, which version steps have an adapter."""
    pages = generate()
    listed = conversions()
    assert listed, "no adapter is registered"
    for step in listed:
        page = pages[f"{step.domain or 'ai.onnx'}/{step.op_type}.md"]
        section = page.split("## Converting between versions", 1)[1].split("\n## ", 1)[0]
        to = str(step.to_version) if step.to_version else "older opsets"
        row = f"| {step.from_version} | {to}"
        assert any(
            line.startswith(row) and step.summary[:20] in line for line in section.splitlines()
        ), (step, section[:500])
