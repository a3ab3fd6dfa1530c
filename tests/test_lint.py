"""The code stays lint-clean and type-clean: ruff (lint and format) and mypy --strict on src/.

These run the same commands as docs/development.md, so CI enforces what the conventions promise,
among them that `src/` never imports the test oracles onnx and onnxruntime (ruff's banned-api
rule, configured in pyproject.toml).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TREES = ["src", "tests", "examples"]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=False)


def _ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if found is None:
        pytest.fail("ruff is not installed; it is part of the dev extra: pip install -e '.[dev]'")
    return found


def test_ruff_lint_is_clean() -> None:
    result = _run(_ruff(), "check", "--no-cache", *TREES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = _run(_ruff(), "format", "--check", "--no-cache", *TREES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean_on_src() -> None:
    result = _run(sys.executable, "-m", "mypy", "--no-incremental")
    assert result.returncode == 0, result.stdout + result.stderr
