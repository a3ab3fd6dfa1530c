"""docs/converters/: every page quotes its converter exactly and its examples run.

A quoted module sits in a ``python`` block right after ``<!-- quote: path -->``. Each page's
examples draw its converter's graph (``oc.draw(model, "<page>.svg")``) and the page shows
``docs/converters/<page>.svg``, which must be what the examples draw today. Run this file
(``python tests/converters/test_docs_pages.py``) to copy the modules into the pages again and
redraw the pictures.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = REPO / "docs" / "converters"
MODULES = REPO / "examples" / "converters"
QUOTE = re.compile(r"(<!-- quote: (\S+) -->\n```python\n)(.*?)(```)", re.S)
BLOCK = re.compile(r"(<!-- quote: \S+ -->\n)?```python\n(.*?)```", re.S)


def pages() -> list[Path]:
    return sorted(p for p in PAGES.glob("*.md") if p.name != "index.md")


def quoted_files(text: str) -> dict[str, str]:
    return {match.group(2): match.group(3) for match in QUOTE.finditer(text)}


def with_fresh_quotes(text: str) -> str:
    return QUOTE.sub(lambda m: m.group(1) + (REPO / m.group(2)).read_text() + m.group(4), text)


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.stem)
def test_quoted_code_equals_the_file(page: Path) -> None:
    text = page.read_text()
    quotes = quoted_files(text)
    assert quotes, f"{page.name} quotes no converter"
    for path, code in quotes.items():
        assert code == (REPO / path).read_text(), (
            f"{page.name} quotes an old {path}: run python tests/converters/test_docs_pages.py"
        )


def test_every_converter_module_is_quoted() -> None:
    quoted = {path for page in pages() for path in quoted_files(page.read_text())}
    modules = {
        f"examples/converters/{p.name}" for p in MODULES.glob("*.py") if p.stem != "__init__"
    }
    assert quoted == modules


def run_examples(page: Path, folder: Path) -> None:
    """The page's other python blocks, in order and in one namespace (they assert), run in
    ``folder`` (where they draw the page's picture)."""
    namespace: dict[str, object] = {}
    blocks = [m.group(2) for m in BLOCK.finditer(page.read_text()) if m.group(1) is None]
    assert blocks, f"{page.name} has no example"
    before = Path.cwd()
    os.chdir(folder)
    sys.path.insert(0, str(REPO))
    try:
        for block in blocks:
            exec(compile(block, str(page), "exec"), namespace)
    finally:
        sys.path.remove(str(REPO))
        os.chdir(before)


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.stem)
def test_page_examples_run_and_draw_the_committed_picture(page: Path, tmp_path: Path) -> None:
    run_examples(page, tmp_path)
    picture = f"{page.stem}.svg"
    assert f"![graph]({picture})" in page.read_text(), f"{page.name} does not show {picture}"
    drawn = tmp_path / picture
    assert drawn.exists(), f"{page.name}'s examples do not draw {picture}"
    assert (PAGES / picture).read_text(encoding="utf-8") == drawn.read_text(encoding="utf-8"), (
        f"docs/converters/{picture} is stale: run python tests/converters/test_docs_pages.py"
    )


def test_the_gallery_is_linked() -> None:
    index = (PAGES / "index.md").read_text()
    for page in pages():
        assert f"({page.name})" in index, f"index.md does not link {page.name}"
    assert "(docs/converters/index.md)" in (REPO / "README.md").read_text()
    assert "(converters/index.md)" in (REPO / "docs" / "guide.md").read_text()


if __name__ == "__main__":
    sys.path.insert(0, str(REPO / "src"))
    for page in pages():
        page.write_text(with_fresh_quotes(page.read_text()))
        with tempfile.TemporaryDirectory() as scratch:
            run_examples(page, Path(scratch))
            picture = f"{page.stem}.svg"
            (PAGES / picture).write_bytes((Path(scratch) / picture).read_bytes())
        print(f"wrote docs/converters/{picture}")
    sys.exit(0)
