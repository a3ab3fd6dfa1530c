"""Every ``python`` block of each documentation page below runs, in order, in one namespace
(each block checks what it shows with asserts). Pages whose examples need more (a folder,
files) have tests of their own beside the code they document."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"

# Each page and the fewest examples it has: a page that loses them fails here.
PAGES = {
    "compare.md": 3,
    "target-opsets.md": 3,
    "testing.md": 5,
    "evaluation-speed.md": 4,
    "inference-speed.md": 2,
    "build-speed.md": 1,
}


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_page_runs(page: str) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), re.S)
    assert len(blocks) >= PAGES[page], f"{page} lost its examples"
    namespace: dict[str, object] = {}
    for index, block in enumerate(blocks):
        exec(compile(block, f"{page} block {index + 1}", "exec"), namespace)
