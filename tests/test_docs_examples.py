"""The README quickstart and every example run, and check what they claim."""

from __future__ import annotations

import importlib.util
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


def test_readme_quickstart_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (REPO / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code is not None
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    exec(compile(code.group(1), "README.md", "exec"), namespace)
    assert (tmp_path / "linreg.onnx").exists()
    assert np.asarray(namespace["out"]["Y"]).shape == (2, 3)  # type: ignore[index]


EXAMPLES = sorted(p.stem for p in (REPO / "examples").glob("*.py"))


def _example(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(
        f"example_{name}", REPO / "examples" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"example_{name}"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs(name: str, tmp_path: Path) -> None:
    _example(name).main(str(tmp_path / f"{name}.onnx"))  # each example asserts its results
    assert (tmp_path / f"{name}.onnx").exists()


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_leaves_no_temporary_folder(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Run as a user would, with no path: the scratch folder goes away with the example.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    _example(name).main()
    assert list(tmp_path.iterdir()) == []
