"""Every ``python`` block of docs/inference-speed.md runs, in order, in one namespace (each
checks what it shows with asserts)."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "inference-speed.md"


def test_the_inference_speed_page_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 2, "the page lost its examples"
    namespace: dict[str, object] = {}
    for index, block in enumerate(blocks):
        exec(compile(block, f"{DOC.name} block {index + 1}", "exec"), namespace)
