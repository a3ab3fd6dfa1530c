"""docs/pictures.md: its example runs, and the SVG the page shows is the one that example
draws today (layout and style changes must update it).

To refresh the committed picture: ``python tests/draw/test_docs_pictures.py``.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "pictures.md"
PICTURE = REPO / "docs" / "pictures" / "classifier.svg"


def _run_example(folder: Path) -> dict[str, object]:
    code = re.search(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert code is not None, "docs/pictures.md has no python example"
    namespace: dict[str, object] = {}
    before = Path.cwd()
    os.chdir(folder)
    try:
        exec(compile(code.group(1), str(PAGE), "exec"), namespace)
    finally:
        os.chdir(before)
    return namespace


def test_the_example_writes_both_files(tmp_path: Path) -> None:
    namespace = _run_example(tmp_path)
    svg = (tmp_path / "classifier.svg").read_text(encoding="utf-8")
    assert svg == namespace["svg_text"]
    page = (tmp_path / "classifier.html").read_text(encoding="utf-8")
    assert page == namespace["page_text"]
    assert "then_branch" in svg and "else_branch" in svg and "float[N,8]" in svg


def test_the_committed_picture_is_what_the_example_draws(tmp_path: Path) -> None:
    _run_example(tmp_path)
    assert "](pictures/classifier.svg)" in PAGE.read_text(encoding="utf-8")
    drawn = (tmp_path / "classifier.svg").read_text(encoding="utf-8")
    assert PICTURE.read_text(encoding="utf-8") == drawn, (
        "docs/pictures/classifier.svg is stale: run python tests/draw/test_docs_pictures.py"
    )


if __name__ == "__main__":
    import tempfile

    sys.path.insert(0, str(REPO / "src"))
    with tempfile.TemporaryDirectory() as scratch:
        _run_example(Path(scratch))
        PICTURE.write_bytes((Path(scratch) / "classifier.svg").read_bytes())
    print(f"wrote {PICTURE}")
