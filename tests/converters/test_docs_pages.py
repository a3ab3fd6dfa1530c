"""docs/converters/: every page quotes its converter exactly and its examples run.

A quoted module sits in a ``python`` block right after ``<!-- quote: path -->``; run this file
(``python tests/converters/test_docs_pages.py``) to copy the modules into the pages again.
"""

from __future__ import annotations

import re
import sys
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


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.stem)
def test_page_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other python blocks of a page run in order, in one namespace (they assert)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(REPO))
    namespace: dict[str, object] = {}
    blocks = [m.group(2) for m in BLOCK.finditer(page.read_text()) if m.group(1) is None]
    assert blocks, f"{page.name} has no example"
    for block in blocks:
        exec(compile(block, str(page), "exec"), namespace)


def test_the_gallery_is_linked() -> None:
    index = (PAGES / "index.md").read_text()
    for page in pages():
        assert f"({page.name})" in index, f"index.md does not link {page.name}"
    assert "(docs/converters/index.md)" in (REPO / "README.md").read_text()
    assert "(converters/index.md)" in (REPO / "docs" / "guide.md").read_text()


if __name__ == "__main__":
    for page in pages():
        page.write_text(with_fresh_quotes(page.read_text()))
    sys.exit(0)
