"""Progress lines: drawn on a terminal once work has taken half a second, never elsewhere."""

from __future__ import annotations

import io
import re

from onnxcraft.cli.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_on_a_terminal_after_a_delay() -> None:
    stream = _Terminal()
    progress = Progress(stream)
    progress.stage("running m.onnx")
    assert stream.getvalue() == ""  # too early: a quick command never shows it
    progress.started -= 1.0
    for _ in range(3):
        assert progress.is_set() is False  # the cancel-token protocol: never stops the run
    line = stream.getvalue().split("\r")[-1]
    assert re.fullmatch(r"onnxcraft: running m\.onnx, [123] steps, \d+\.\d s *", line), line
    progress.close()
    assert stream.getvalue().endswith("\r" + " " * len(line.rstrip()) + "\r")


def test_no_progress_when_stderr_is_not_a_terminal() -> None:
    stream = io.StringIO()
    with Progress(stream) as progress:
        progress.started -= 1.0
        progress.stage("running m.onnx")
        progress.is_set()
    assert stream.getvalue() == ""
