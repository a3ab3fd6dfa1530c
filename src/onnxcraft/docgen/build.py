"""Collecting the pages of the operator reference and writing or checking them.

The reference of the standard (``generate()``) or of a user's spec folder
(``generate(spec_folder)``): a page per operator with its examples run and its plot, an index
per reference. Pages are Markdown; plots are SVG files beside them (``<domain>/plots/``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from os import PathLike
from pathlib import Path

from onnxcraft.convert.listing import conversions
from onnxcraft.docgen.examples import render_examples
from onnxcraft.docgen.pages import (
    GENERATED_NOTE,
    Coverage,
    PageExtras,
    index_page,
    operator_page,
    page_path,
    plot_path,
)
from onnxcraft.docgen.plots import function_plot, svg_of
from onnxcraft.errors import SpecError
from onnxcraft.evaluate.kernels import default_registry as kernels
from onnxcraft.infer.rules import default_rules
from onnxcraft.specs.model import OpSpec
from onnxcraft.specs.registry import SpecRegistry, default_registry

__all__ = ["DOCS_DIR", "coverage_of", "generate", "stale_pages", "write_pages"]

# How many operators' problems a failed build lists.
_SHOWN = 20

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


def _evaluable(spec: OpSpec) -> bool:
    return coverage_of(spec).evaluator != "none"


def _extras(versions: list[OpSpec], module: str, python: str = "") -> tuple[PageExtras, str]:
    """The examples of every version, run, and the plot (with its SVG text, or "")."""
    examples = {
        spec.since_version: render_examples(spec, module, _evaluable)
        for spec in versions
        if spec.examples
    }
    newest = versions[-1]
    plot = function_plot(newest) if _evaluable(newest) else None
    if plot is None:
        return PageExtras(examples, None, python), ""
    path = plot_path(newest)
    relative = path.split("/", 1)[1]  # beside the page, in the same domain folder
    svg = svg_of(plot, GENERATED_NOTE.strip())
    return PageExtras(examples, (relative, plot.caption), python), svg


def _reference(
    operators: Iterable[list[OpSpec]],
    module_of: dict[str, str],
    python_of: dict[str, str],
    source: str = "`opset_specs/`",
) -> dict[str, str]:
    pages: dict[str, str] = {}
    by_domain: dict[str, list[list[OpSpec]]] = {}
    problems: list[str] = []
    for versions in operators:
        versions.sort(key=lambda s: s.since_version)
        newest = versions[-1]
        module = module_of.get(newest.domain, "op")
        try:
            extras, svg = _extras(versions, module, python_of.get(newest.domain, ""))
        except SpecError as exc:  # every operator's problems are told at once
            problems.append(str(exc))
            continue
        steps = conversions(newest.name, newest.domain)
        pages[page_path(newest)] = operator_page(versions, coverage_of, steps, extras)
        if svg:
            pages[plot_path(newest)] = svg
        by_domain.setdefault(newest.domain, []).append(versions)
    if problems:
        shown = "\n".join(f"- {problem}" for problem in problems[:_SHOWN])
        more = f"\n... and {len(problems) - _SHOWN} more" if len(problems) > _SHOWN else ""
        raise SpecError(
            f"docgen: the examples of {len(problems)} "
            f"{'operator fail' if len(problems) == 1 else 'operators fail'}:\n{shown}{more}"
        )
    pages["README.md"] = index_page(by_domain, coverage_of, source)
    return pages


@functools.cache
def _standard_reference() -> tuple[tuple[str, str], ...]:
    # Built once per process: the standard's pages depend only on the shipped specs and the
    # kernels and rules of the standard, which user code cannot replace.
    registry = default_registry()
    by_operator: dict[tuple[str, str], list[OpSpec]] = {}
    for spec in registry.schemas():
        if registry.is_standard(spec.domain):
            by_operator.setdefault((spec.domain, spec.name), []).append(spec)
    pages = _reference([by_operator[key] for key in sorted(by_operator)], {}, {})
    return tuple(pages.items())


def _user_reference(folder: Path) -> dict[str, str]:
    own = SpecRegistry()
    domains = own.add_folder(folder)
    if not domains:
        raise SpecError(
            f"docgen: spec folder {str(folder)!r} holds no spec files (expected <domain>/<Op>.json)"
        )
    # The evaluator finds operators through the default registry, as oc.load_opset does.
    default_registry().add_folder(folder)
    operators = [list(own.versions_of(d, name)) for d in domains for name in own.op_names(d)]
    python = {
        d: f"In Python: `ops = oc.load_opset({str(folder.name)!r}, domain={d!r})`, then "
        f"`ops.<Operator>(...)` (or the package `python -m onnxcraft.codegen --specs` writes)."
        for d in domains
    }
    return _reference(operators, dict.fromkeys(domains, "ops"), python, f"`{folder.name}/`")


def generate(spec_folder: str | PathLike[str] | None = None) -> dict[str, str]:
    """Every page (and plot), keyed by its path relative to the reference's folder: the
    standard's reference (docs/operators/), or that of a user's spec folder."""
    if spec_folder is None:
        return dict(_standard_reference())
    folder = Path(spec_folder)
    if not folder.is_dir():
        raise SpecError(f"docgen: spec folder {str(folder)!r} is not a folder")
    return _user_reference(folder)


def _generated_files(root: Path) -> set[str]:
    if not root.is_dir():
        return set()
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.suffix in (".md", ".svg")
        and p.read_text(encoding="utf-8").startswith(GENERATED_NOTE.strip())
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
