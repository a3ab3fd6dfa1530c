"""The documentation as a static HTML site with search: the guide pages and the operator
reference, built by MkDocs with the Material theme (the ``docs`` extra).

``python -m onnxcraft.docgen --site DIR`` stages the pages in a temporary MkDocs project (the
guide pages of ``docs/`` as they are, the operator reference freshly generated from the
specs, a landing page listing both) and builds it into ``DIR`` in strict mode, so a broken
internal link fails the build. The Markdown under ``docs/`` stays what people read on the
repository; the site is made from it, never edited.

MkDocs is the ``docs`` extra, not a runtime dependency: only this module imports it, and only
``--site`` imports this module.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from onnxcraft.docgen.build import generate
from onnxcraft.errors import OnnxcraftError

__all__ = ["SiteError", "build_site", "guide_pages"]

GUIDE_DIR = Path(__file__).resolve().parents[3] / "docs"

# Guide pages in reading order; any other page of docs/ follows, by name.
_ORDER = (
    "guide.md",
    "tensors.md",
    "model-files.md",
    "testing.md",
    "spec-format.md",
    "adding-an-operator.md",
    "architecture.md",
    "development.md",
    "status.md",
)
_ASSETS = (".svg", ".png", ".jpg", ".css", ".js")


class _Warnings(logging.Handler):
    """MkDocs' warnings, kept to say why a strict build failed."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


class SiteError(OnnxcraftError):
    """The site could not be built: MkDocs missing, or a page it refuses."""


def _title(text: str, fallback: str) -> str:
    match = re.search(r"^#\s+(.+)$", text, flags=re.MULTILINE)
    return match.group(1).strip() if match else fallback


def guide_pages(folder: Path = GUIDE_DIR) -> list[Path]:
    """The guide's Markdown pages (the folder's top level), in reading order."""
    pages = sorted(folder.glob("*.md"))
    rank = {name: i for i, name in enumerate(_ORDER)}
    return sorted(pages, key=lambda p: (rank.get(p.name, len(rank)), p.name))


def _other_files(folder: Path) -> list[Path]:
    """The pages and pictures in the guide's subfolders (a gallery, pictures), and the top
    level's pictures; the operator reference is generated afresh instead."""
    found = [p for p in folder.iterdir() if p.is_file() and p.suffix in _ASSETS]
    for sub in folder.iterdir():
        if sub.is_dir() and sub.name != "operators":
            found += [p for p in sub.rglob("*") if p.is_file() and p.suffix in (*_ASSETS, ".md")]
    return sorted(found)


def _landing_page(guide: list[tuple[str, str]]) -> str:
    if not guide:  # a user's reference alone
        return (
            "# Operator reference\n\n- [Every operator of every version](operators/README.md)"
            ": inputs, outputs, attributes with their meaning, and examples.\n"
        )
    lines = [
        "# onnxcraft",
        "",
        "Build ONNX models from Python code: typed operator functions generated from the "
        "ONNX standard's specs, shape inference as you build, a numpy evaluator, and "
        "property-based testing of operators.",
        "",
        "## The guide",
        "",
        *(f"- [{title}]({path})" for path, title in guide),
        "",
        "## The operator reference",
        "",
        "- [Every operator of every version](operators/README.md): inputs, outputs, "
        "attributes, type constraints, and what onnxcraft's evaluator and inference cover.",
        "",
    ]
    return "\n".join(lines)


def _config(site_dir: Path, guide: list[tuple[str, str]], sections: list[tuple[str, str]]) -> str:
    nav = "\n".join(f"      - {title!r}: {path}" for path, title in guide)
    guide_nav = f"  - Guide:\n{nav}\n" if guide else ""
    more = "".join(f"\n  - {title!r}: {path}" for path, title in sections)
    return f"""site_name: onnxcraft
site_dir: {str(site_dir)!r}
docs_dir: docs
use_directory_urls: false
strict: true
theme:
  name: material
  features:
    - navigation.sections
    - search.highlight
    - search.suggest
plugins:
  - search
markdown_extensions:
  - tables
  - admonition
  - toc:
      permalink: true
validation:
  links:
    not_found: warn
    anchors: warn
nav:
  - Home: index.md
{guide_nav}  - Operators: operators/README.md{more}
"""


def build_site(
    out: Path,
    *,
    operator_pages: Mapping[str, str] | None = None,
    guide_dir: Path | None = GUIDE_DIR,
) -> Path:
    """Build the site into ``out`` (created or replaced); return the path of its index page.

    ``operator_pages`` (path under ``operators/`` -> Markdown or SVG text) defaults to the
    reference generated from the specs now; ``guide_dir`` None leaves the guide out (the site
    of a user's spec folder).
    """
    if guide_dir is not None and not Path(guide_dir).is_dir():
        raise SiteError(f"build_site: guide_dir {str(guide_dir)!r} is not a folder of pages")
    if operator_pages is None:
        operator_pages = generate()
    out = Path(out).resolve()
    with tempfile.TemporaryDirectory(prefix="onnxcraft-site-") as staging:
        docs = Path(staging) / "docs"
        (docs / "operators").mkdir(parents=True)
        guide = []
        for page in guide_pages(guide_dir) if guide_dir is not None else []:
            text = page.read_text(encoding="utf-8")
            (docs / page.name).write_text(text, encoding="utf-8")
            guide.append((page.name, _title(text, page.stem)))
        assets = (
            []
            if guide_dir is None
            else [(a, a.relative_to(guide_dir)) for a in _other_files(guide_dir)]
        )
        for asset, relative_path in assets:
            target = docs / relative_path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(asset, target)
        for relative, text in operator_pages.items():
            target = docs / "operators" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        (docs / "index.md").write_text(_landing_page(guide), encoding="utf-8")
        config_file = Path(staging) / "mkdocs.yml"
        # a subfolder with an index page (the converter gallery) is a section of its own
        sections = [
            (f"{index.parent.name}/index.md", _title(index.read_text("utf-8"), index.parent.name))
            for index in (sorted(guide_dir.glob("*/index.md")) if guide_dir is not None else [])
        ]
        config_file.write_text(_config(out, guide, sections), encoding="utf-8")
        warnings = _Warnings()
        logger = logging.getLogger("mkdocs")
        logger.addHandler(warnings)
        try:
            build(load_config(str(config_file)))
        except (MkDocsException, SystemExit) as exc:
            said = "; ".join(warnings.messages)
            raise SiteError(f"MkDocs refused the site: {exc} {said}".strip()) from None
        finally:
            logger.removeHandler(warnings)
    return out / "index.html"
