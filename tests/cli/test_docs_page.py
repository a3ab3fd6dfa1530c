"""docs/command-line.md runs as written: in an empty folder, its ``python`` blocks are executed
and each ``$`` line of its ``console`` blocks is run as a command, whose output (stdout, then
stderr) must be the text shown below it. Numbers are compared as placeholders, since they
depend on the machine's arithmetic and clock, and runs of spaces as one (table columns widen
with their numbers); everything else must match exactly."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.runner import REPO, command, environment

DOC = REPO / "docs" / "command-line.md"
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*(?:e[-+]?\d+)?")


def _normal(text: str) -> list[str]:
    return [" ".join(_NUMBER.sub("#", line).split()) for line in text.strip().splitlines()]


def _commands(block: str) -> list[tuple[str, str]]:
    """(command line, expected output) pairs of a console block."""
    pairs: list[tuple[str, str]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], ""))
        elif pairs:
            pairs[-1] = (pairs[-1][0], pairs[-1][1] + line + "\n")
    return pairs


def _argv(line: str) -> list[str]:
    words = shlex.split(line)
    if words[0] == "onnxcraft":
        return [*command(), *words[1:]]
    assert words[0] == "python", line
    return [sys.executable, *(str(REPO / w) if w.startswith("examples/") else w for w in words[1:])]


def test_the_command_line_page_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```(python|console)\n(.*?)```", DOC.read_text(), re.S)
    assert sum(kind == "console" for kind, _ in blocks) >= 6, "the page lost its examples"
    namespace: dict[str, object] = {}
    for index, (kind, block) in enumerate(blocks):
        if kind == "python":
            exec(compile(block, f"{DOC.name} block {index + 1}", "exec"), namespace)
            continue
        for line, expected in _commands(block):
            result = subprocess.run(
                _argv(line),
                capture_output=True,
                text=True,
                cwd=tmp_path,
                env=environment(),
                timeout=120,
                check=False,
            )
            assert _normal(result.stdout + result.stderr) == _normal(expected), line
