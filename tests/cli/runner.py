"""Running the ``onnxcraft`` command as a user does: a separate process, its output and status.

Which executable: the ``onnxcraft`` console script beside the running Python when it was
installed from THIS checkout (``pip install -e .`` writes it, and records the checkout in the
distribution's direct_url.json), so that the tests drive the real entry point; otherwise
``python -m onnxcraft``. The otherwise is for a checkout that is not the installed one (a git
worktree, whose sources are put on PYTHONPATH): the script installed from another checkout
would import that checkout's command line. Either way this checkout's ``src`` comes first on
PYTHONPATH. ``tests/cli/test_entry_point.py`` checks the declaration of the script itself.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 120  # seconds: a hung command fails its test rather than the suite


@cache
def installed_script() -> str | None:
    """The ``onnxcraft`` console script installed from this checkout, if there is one."""
    script = shutil.which("onnxcraft", path=str(Path(sys.executable).parent))
    if script is None:
        return None
    try:
        origin = importlib.metadata.distribution("onnxcraft").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        return None
    if not origin or json.loads(origin).get("url") != REPO.as_uri():
        return None
    return script


def command() -> list[str]:
    script = installed_script()
    return [script] if script else [sys.executable, "-m", "onnxcraft"]


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("ONNXCRAFT_TRACEBACK", None)
    return env


def onnxcraft(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``onnxcraft ARGS...`` and return what it printed and its exit status."""
    return subprocess.run(
        [*command(), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment(),
        timeout=TIMEOUT,
        check=False,
    )


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single line of an error, after checking that there is exactly one and no traceback."""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("onnxcraft: error: "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]
