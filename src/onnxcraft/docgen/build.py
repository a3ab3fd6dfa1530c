"""Collecting the pages of the operator reference and writing or checking them."""

from __future__ import annotations

from pathlib import Path

from onnxcraft import specs
from onnxcraft.convert.listing import conversions
from onnxcraft.docgen.pages import (
    GENERATED_NOTE,
    Coverage,
    index_page,
    operator_page,
    page_path,
)
from onnxcraft.evaluate.kernels import default_registry as kernels
from onnxcraft.infer.rules import default_rules
from onnxcraft.specs.model import OpSpec
from onnxcraft.specs.registry import default_registry

__all__ = ["DOCS_DIR", "coverage_of", "generate", "stale_pages", "write_pages"]

DOCS_DIR = Path(__file__).resolve().parents[3] / "docs" / "operators"


def coverage_of(spec: OpSpec) -> Coverage:
    """What the evaluator and the inference rules do for one operator version."""
    if spec.key in kernels():
        evaluator = "kernel"
    elif spec.functions:
        evaluator = "function body"
    else:
        evaluator = "none"
    if default_rules().lookup(*spec.key) is not None:
        inference = "rule"
    elif spec.functions:
        inference = "function body"
    else:
        inference = "element types only"
    return Coverage(evaluator, inference)


def generate() -> dict[str, str]:
    """Every page, keyed by its path relative to docs/operators/."""
    by_operator: dict[tuple[str, str], list[OpSpec]] = {}
    # The reference documents the standard: user folders registered in this process are not.
    registry = default_registry()
    for spec in (s for s in specs.schemas() if registry.is_standard(s.domain)):
        by_operator.setdefault((spec.domain, spec.name), []).append(spec)
    pages: dict[str, str] = {}
    by_domain: dict[str, list[list[OpSpec]]] = {}
    for (domain, _), versions in sorted(by_operator.items()):
        versions.sort(key=lambda s: s.since_version)
        newest = versions[-1]
        steps = conversions(newest.name, newest.domain)
        pages[page_path(newest)] = operator_page(versions, coverage_of, steps)
        by_domain.setdefault(domain, []).append(versions)
    pages["README.md"] = index_page(by_domain, coverage_of)
    return pages


def _generated_files(root: Path) -> set[str]:
    if not root.is_dir():
        return set()
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*.md")
        if p.read_text(encoding="utf-8").startswith(GENERATED_NOTE)
    }


def write_pages(pages: dict[str, str], root: Path) -> list[str]:
    """Write changed pages; remove generated pages of operators no longer in the specs."""
    for rel in _generated_files(root) - pages.keys():
        (root / rel).unlink()
    written = []
    for rel, text in pages.items():
        path = root / rel
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(rel)
    return written


def stale_pages(pages: dict[str, str], root: Path) -> list[str]:
    stale = [
        rel
        for rel, text in pages.items()
        if not (root / rel).exists() or (root / rel).read_text(encoding="utf-8") != text
    ]
    return stale + sorted(
        f"{rel} (no longer generated)" for rel in _generated_files(root) - pages.keys()
    )
