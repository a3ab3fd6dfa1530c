"""The layers of docs/architecture.md hold, as the imports say.

- import-linter's contracts in pyproject.toml (run through its console script, as a developer
  runs it): no module imports a higher layer, and no two modules of a package import each other
  in a loop (`acyclic_siblings`);
- no module inside the package imports the package root (`onnxcraft/__init__.py` sits above
  everything);
- imports inside functions are few, and each says why on its line or the line above.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # mypy, in the test extra, brings tomli to Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "onnxcraft"
MAX_FUNCTION_IMPORTS = 20


def _lint_imports() -> str:
    found = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    found = found or shutil.which("lint-imports")
    if found is None:
        pytest.fail(
            "lint-imports is not installed; it is in the dev extra: pip install -e '.[dev]'"
        )
    return found


def test_import_linter_contracts_are_kept() -> None:
    result = subprocess.run(
        [_lint_imports(), "--no-cache"], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_every_module_of_the_package_sits_in_a_layer() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = [
        c["layers"] for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"
    ]
    placed = {name.strip() for layer in layers for name in layer.replace(":", "|").split("|")}
    children = {
        f"onnxcraft.{p.stem if p.is_file() else p.name}"
        for p in SRC.iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").is_file()
    }
    assert children - placed == set(), f"modules in no layer: {sorted(children - placed)}"
    assert placed - children == set(), f"layers naming no module: {sorted(placed - children)}"


def test_nothing_inside_imports_the_package_root() -> None:
    graph = grimp.build_graph("onnxcraft", cache_dir=None)
    importers = sorted(graph.find_modules_that_directly_import("onnxcraft"))
    assert not importers, f"modules importing the package root onnxcraft/__init__.py: {importers}"


def _function_level_imports() -> list[tuple[str, int, bool]]:
    """(file, line, explained) for every import statement inside a function of src/."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if "opset/ai" in path.as_posix() or path.name == "onnx_pb2.py":
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    line = lines[inner.lineno - 1]
                    above = lines[inner.lineno - 2].strip() if inner.lineno > 1 else ""
                    explained = above.startswith("#") or "#" in line.split("noqa")[0]
                    found.append((path.relative_to(REPO).as_posix(), inner.lineno, explained))
    return sorted(set(found))


def test_imports_inside_functions_are_few_and_explained() -> None:
    found = _function_level_imports()
    unexplained = [f"{f}:{n}" for f, n, explained in found if not explained]
    assert not unexplained, f"imports inside functions without a comment saying why: {unexplained}"
    assert len(found) < MAX_FUNCTION_IMPORTS, [f"{f}:{n}" for f, n, _ in found]
