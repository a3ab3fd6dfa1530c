"""The python blocks of docs/reading-models.md's section on to_python run, in order, in one
namespace, and the module it shows is what to_python writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import onnxcraft as oc

DOC = Path(__file__).resolve().parents[2] / "docs" / "reading-models.md"
SECTION = "## From a model to onnxcraft code"


def _section() -> str:
    text = DOC.read_text()
    start = text.index(SECTION)
    following = text.find("\n## ", start + len(SECTION))
    return text[start : following if following != -1 else len(text)]


def test_the_section_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    section = _section()
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 3, "the section lost its examples"
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    for index, block in enumerate(blocks):
        exec(compile(block, f"{DOC.name} to_python block {index + 1}", "exec"), namespace)
    shown = re.findall(r"```text\n(.*?)```", section, re.S)[0]
    assert str(namespace["source"]).replace(oc.__version__, "0.1.0") == shown
