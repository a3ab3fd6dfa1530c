"""The command's two entry points and its start-up.

``onnxcraft`` is a console script declared in pyproject.toml; ``python -m onnxcraft`` runs the
same ``main``. The other CLI tests run the script when it is installed from this checkout
(``runner.py``); here its declaration is checked in any case, and an installation of this
checkout that lacks the script (installed before it was declared) fails with the fix.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import subprocess
import sys

import onnxcraft
from tests.cli.runner import REPO, environment, installed_script

if sys.version_info >= (3, 11):
    import tomllib
else:  # mypy, in the test extra, brings tomli to Python 3.10
    import tomli as tomllib


def test_the_console_script_is_declared_and_resolves() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    target = config["project"]["scripts"]["onnxcraft"]
    module_name, _, function = target.partition(":")
    from onnxcraft.cli.main import main

    assert getattr(importlib.import_module(module_name), function) is main


def test_an_installation_of_this_checkout_has_the_script() -> None:
    try:
        origin = importlib.metadata.distribution("onnxcraft").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        return  # run from the sources alone: nothing is installed to check
    if origin and json.loads(origin).get("url") == REPO.as_uri():
        assert installed_script() is not None, (
            "onnxcraft is installed from this checkout without its console script: "
            "reinstall it (pip install -e '.[dev]')"
        )


def test_help_starts_without_protobuf_or_the_evaluator() -> None:
    probe = (
        "import sys\n"
        "from onnxcraft.cli.main import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('google.protobuf', 'onnxcraft.evaluate.evaluator', 'onnxcraft.io')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=environment(),
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "[]"


def test_python_dash_m_runs_the_same_main() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "onnxcraft", "--version"],
        capture_output=True,
        text=True,
        env=environment(),
        check=False,
    )
    assert (result.returncode, result.stdout.strip()) == (0, f"onnxcraft {onnxcraft.__version__}")
