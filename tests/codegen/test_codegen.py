"""The generated opset modules are fresh, have the right members, and type-check."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft import specs

REPO = Path(__file__).resolve().parents[2]


def test_generated_modules_are_fresh() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "onnxcraft.codegen", "--check"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("domain", "package"),
    [
        ("", "onnxcraft.opset.ai.onnx"),
        ("ai.onnx.ml", "onnxcraft.opset.ai.onnx.ml"),
        ("ai.onnx.preview.training", "onnxcraft.opset.ai.onnx.preview.training"),
        ("ai.onnx.preview", "onnxcraft.opset.ai.onnx.preview"),
    ],
)
def test_each_module_exposes_exactly_the_valid_operators(domain: str, package: str) -> None:
    for opset in range(1, specs.max_opset(domain) + 1):
        module = importlib.import_module(f"{package}.v{opset}")
        expected = set(specs.ops_at(domain, opset))
        assert set(module.__all__) == expected, opset
        for name in expected:
            fn = getattr(module, name)
            spec = specs.get(name, domain=domain, opset=opset)
            assert f"@{spec.since_version}::{name}" in (fn.__doc__ or "")


def test_an_unchanged_operator_records_the_opset_of_the_module_called() -> None:
    from onnxcraft.opset.ai.onnx import v14, v21

    assert specs.get("Add", opset=21).since_version == 14
    x = oc.arg("x", np.float32, (2,))
    for module, opset in ((v14, 14), (v21, 21)):
        model = oc.build(inputs=[x], outputs={"y": module.Add(x, x)})
        assert {o.domain: o.version for o in model.opset_import}[""] == opset


def test_mypy_accepts_correct_calls_and_flags_wrong_attribute_types(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    good = tmp_path / "good.py"
    good.write_text(
        "import numpy as np\nimport onnxcraft as oc\n"
        "from onnxcraft.opset.ai.onnx import v21 as op\n"
        "x = oc.arg('x', np.float32, ('N', 3))\n"
        "y: oc.Var = op.Softmax(op.Add(x, 1.0), axis=1)\n"
        "v, i = op.TopK(x, np.array([2]), axis=1)\n"
        "z = op.Cast(y, to=np.int64)\n"
        "r = op.Resize(x, None, np.array([1.0, 2.0], np.float32), mode='linear')\n"
    )
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import numpy as np\nimport onnxcraft as oc\n"
        "from onnxcraft.opset.ai.onnx import v21 as op\n"
        "x = oc.arg('x', np.float32, (3,))\ny = op.Softmax(x, axis='last')\n"
        "r = op.Resize(x, None, np.array([2.0], np.float32), mode='bilinear')\n"
    )
    run = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent"]
    ok = subprocess.run([*run, str(good)], capture_output=True, text=True, cwd=REPO, check=False)
    assert ok.returncode == 0, ok.stdout
    wrong = subprocess.run([*run, str(bad)], capture_output=True, text=True, cwd=REPO, check=False)
    assert wrong.returncode == 1, wrong.stdout
    # a real def of that version (not a rebound variable): mypy names the operator
    assert (
        'Argument "axis" to "Softmax" has incompatible type "str"; expected "int"' in wrong.stdout
    )
    # an enumerated attribute is a Literal: a value outside the spec's set is a type error
    assert 'Argument "mode" to "Resize" has incompatible type' in wrong.stdout
    assert "\"Literal['nearest', 'linear', 'cubic']\"" in wrong.stdout
