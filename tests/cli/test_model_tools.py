"""The subcommands that turn a model into something else: its text, its picture, the same
model at another opset, the code that rebuilds it; and the conformance runner. Each through
the command a user runs, its result checked with the library (and onnx where it reads it)."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import onnx

import onnxcraft as oc
from tests.cli.conftest import Files
from tests.cli.runner import one_error_line, onnxcraft


def test_text_prints_what_to_text_prints(files: Files, tmp_path: Path) -> None:
    result = onnxcraft("text", str(files.mlp))
    assert result.returncode == 0, result.stderr
    assert result.stdout == oc.to_text(oc.load(files.mlp)) + (
        "" if oc.to_text(oc.load(files.mlp)).endswith("\n") else "\n"
    )
    out = tmp_path / "mlp.txt"
    result = onnxcraft("text", str(files.mlp), "--full", "-o", str(out))
    assert result.returncode == 0, result.stderr
    parsed = oc.parse(out.read_text(encoding="utf-8"))
    feeds = {"X": np.ones((2, 4), np.float32)}
    np.testing.assert_array_equal(
        oc.evaluate(parsed, feeds)["Y"], oc.evaluate(files.mlp, feeds)["Y"]
    )


def test_draw_writes_a_page_and_a_picture(files: Files, tmp_path: Path) -> None:
    for name in ("graph.html", "graph.svg"):
        result = onnxcraft("draw", str(files.mlp), "-o", str(tmp_path / name))
        assert result.returncode == 0, result.stderr
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert "<svg" in text and "MatMul" in text
    refused = onnxcraft("draw", str(files.mlp), "-o", str(tmp_path / "graph.png"))
    assert refused.returncode == 2 and ".png" in one_error_line(refused)


def test_convert_writes_the_model_at_the_target_opset(files: Files, tmp_path: Path) -> None:
    out = tmp_path / "mlp13.onnx"
    result = onnxcraft("convert", str(files.mlp), "--opset", "13", "-o", str(out))
    assert result.returncode == 0, result.stderr
    converted = onnx.load(out)
    onnx.checker.check_model(converted, full_check=True)
    assert {o.domain: o.version for o in converted.opset_import}[""] == 13
    feeds = {"X": np.arange(8, dtype=np.float32).reshape(2, 4)}
    np.testing.assert_array_equal(oc.evaluate(out, feeds)["Y"], oc.evaluate(files.mlp, feeds)["Y"])
    bad = onnxcraft("convert", str(files.mlp), "--opset", "thirteen", "-o", str(out))
    assert bad.returncode == 2 and "--opset thirteen" in one_error_line(bad)


def test_to_python_writes_code_that_rebuilds_the_model(files: Files, tmp_path: Path) -> None:
    out = tmp_path / "rebuild.py"
    result = onnxcraft("to-python", str(files.mlp), "-o", str(out), "--inline-limit", "16")
    assert result.returncode == 0, result.stderr
    assert out.with_suffix(".npz").is_file()  # the 4x64 and 64x3 weights
    rebuilt = runpy.run_path(str(out))["build_model"]()
    feeds = {"X": np.ones((3, 4), np.float32)}
    np.testing.assert_array_equal(
        oc.evaluate(rebuilt, feeds)["Y"], oc.evaluate(files.mlp, feeds)["Y"]
    )


def test_conformance_runs_a_backend_against_onnxcraft(tmp_path: Path) -> None:
    result = onnxcraft(
        "conformance",
        "--backend",
        "onnxcraft",
        "--operators",
        "Relu-14",
        "--examples",
        "3",
        "--output",
        str(tmp_path / "report"),
        "--quiet",
    )
    assert result.returncode == 0, result.stderr
    assert "agree: 3" in result.stdout
    assert (tmp_path / "report" / "report.md").is_file()
