"""The examples of docs/reading-models.md's "Text form" section run, and print what it shows:
each ```python block runs (in one namespace, in order) and its output must equal the ```text
block that follows it."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reading-models.md"


def _section() -> str:
    text = PAGE.read_text()
    start = text.index("## Text form")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def test_text_form_examples() -> None:
    blocks = re.findall(r"```(python|text)\n(.*?)```", _section(), re.S)
    assert sum(kind == "python" for kind, _ in blocks) >= 4
    namespace: dict[str, object] = {}
    printed = None
    for kind, body in blocks:
        if kind == "python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(body, str(PAGE), "exec"), namespace)
            printed = out.getvalue()
        else:
            assert printed is not None, "a text block without the python block before it"
            assert printed == body, f"printed:\n{printed}\nthe page shows:\n{body}"
            printed = None
