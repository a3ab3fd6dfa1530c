"""The DSL reaches inference and the opset modules only through hooks the layers above fill."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.core import hooks
from onnxcraft.core.versions import DEFAULT_OPSET
from onnxcraft.infer import engine
from onnxcraft.opset import _modules

CORE = Path(oc.__file__).parent / "core"
# Layers above the DSL (DESIGN.md), and the package root, which imports all of them.
ABOVE = ("onnxcraft.opset", "onnxcraft.ops", "onnxcraft.infer", "onnxcraft.evaluate")
ABOVE += ("onnxcraft.testing", "onnxcraft.codegen", "onnxcraft.docgen")


def _imported_modules(path: Path) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module == "onnxcraft":  # `from onnxcraft import x` runs the package root
                found.extend(f"onnxcraft:{alias.name}" for alias in node.names)
            else:
                found.append(node.module)
    return found


@pytest.mark.parametrize("path", sorted(CORE.glob("**/*.py")), ids=lambda p: p.name)
def test_core_imports_nothing_above_it(path: Path) -> None:
    upward = [
        name
        for name in _imported_modules(path)
        if name.startswith("onnxcraft:") or name.startswith(ABOVE)
    ]
    assert upward == [], f"{path.name} imports {upward}"


def test_the_package_root_fills_every_hook() -> None:
    assert hooks.infer_types.get() is engine.infer_types
    assert hooks.opset_module.get() is _modules.opset_module


def test_an_empty_hook_is_an_onnxcraft_error_naming_who_fills_it() -> None:
    hook: hooks.Hook[hooks.OpsetModule] = hooks.Hook("the generated opset modules", "some.module")
    with pytest.raises(oc.OnnxcraftError, match=r"some\.module provides"):
        hook.get()


def test_an_empty_inference_hook_stops_the_operator_call_with_an_onnxcraft_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x = oc.arg("x", np.float32, (2,))
    monkeypatch.setattr(hooks, "infer_types", hooks.Hook("type inference", "the.engine"))
    with pytest.raises(oc.OnnxcraftError, match=r"the\.engine provides"):
        x + x


def test_python_operators_emit_the_default_opset() -> None:
    x = oc.arg("x", np.float32, (2, 3))
    model = oc.build_ir([x], {"y": -(x + 1.0)[0]})
    assert model.opset_imports == {"": DEFAULT_OPSET}
    assert [n.op_type for n in model.graph.nodes] == ["Add", "Slice", "Squeeze", "Neg"]
