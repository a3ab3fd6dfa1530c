"""docs/guide.md's "Names" section: its example runs and shows the names build gives."""

from __future__ import annotations

import re
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide.md"


def test_the_names_section_example_runs() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split("## Names", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "the Names section of docs/guide.md has no python example"
    exec(compile(code.group(1), str(GUIDE), "exec"), {})
