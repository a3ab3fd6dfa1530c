"""Every subcommand end to end, through the command a user runs (``runner.py`` says which),
its results checked against the library's own functions and, for files, against onnx."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import onnx.numpy_helper
import pytest

import onnxcraft as oc
from onnxcraft.cli.main import main
from onnxcraft.cli.registry import COMMANDS
from onnxcraft.core.check import check_ir
from onnxcraft.opset.ai.onnx import v21 as op
from tests.cli.conftest import Files
from tests.cli.runner import onnxcraft
from tests.node_cases import node_tests_root


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    result = onnxcraft("--help")
    assert result.returncode == 0, result.stderr
    for command in COMMANDS:
        assert command.name in result.stdout
        assert command.summary in result.stdout
        # each command's own help, in this process (a process each would cost a second)
        with pytest.raises(SystemExit) as exit_status:
            main([command.name, "--help"])
        assert exit_status.value.code == 0
        assert f"usage: onnxcraft {command.name}" in capsys.readouterr().out


def test_no_command_prints_the_usage_and_fails() -> None:
    result = onnxcraft()
    assert result.returncode == 2
    assert "COMMAND" in result.stderr


def test_version() -> None:
    result = onnxcraft("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"onnxcraft {oc.__version__}"


def test_check_a_valid_model(files: Files) -> None:
    result = onnxcraft("check", str(files.mlp))
    assert (result.returncode, result.stdout) == (0, f"{files.mlp}: valid\n")


def test_check_lists_every_problem_and_exits_1(files: Files) -> None:
    expected = check_ir(oc.load_ir(files.invalid))
    assert len(expected) == 2
    result = onnxcraft("check", str(files.invalid))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{files.invalid}: 2 problems",
        *(f"  - {p}" for p in expected),
    ]
    as_json = onnxcraft("check", str(files.invalid), "--json")
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout) == {
        "model": str(files.invalid),
        "valid": False,
        "problems": expected,
    }


def test_info_matches_the_model(files: Files) -> None:
    result = onnxcraft("info", str(files.external), "--json")
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    # the oracle reads the file its own way (external data left where it is)
    model = onnx.load(str(files.external), load_external_data=False)
    assert info["ir_version"] == model.ir_version
    assert info["opsets"] == {(o.domain or "ai.onnx"): o.version for o in model.opset_import}
    assert info["inputs"] == {"X": "tensor(float)[N, 4]"}
    assert info["outputs"] == {"Y": "tensor(float)[N, 3]"}
    assert info["operators"] == dict(Counter(n.op_type for n in model.graph.node))
    arrays = [onnx.numpy_helper.to_array(t, str(files.folder)) for t in model.graph.initializer]
    assert info["parameters"] == {
        "tensors": len(arrays),
        "values": sum(a.size for a in arrays),
        "bytes": sum(a.nbytes for a in arrays),
    }
    external = [t for t in model.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    assert info["external_data"] == [
        {
            "location": "external.onnx.data",
            "tensors": len(external),
            "bytes": sum(onnx.numpy_helper.to_array(t, str(files.folder)).nbytes for t in external),
        }
    ]
    text = onnxcraft("info", str(files.external)).stdout
    assert "external data: external.onnx.data" in text
    assert "X  tensor(float)[N, 4]" in text


def test_infer_prints_and_writes_the_types(files: Files, tmp_path: Path) -> None:
    typed = oc.infer_shapes(oc.load_ir(files.mlp))
    expected = {v.name: str(v.type) for v in [*typed.graph.value_info, *typed.graph.outputs]}
    result = onnxcraft("infer", str(files.mlp))
    assert result.returncode == 0, result.stderr
    printed = dict(line.split(None, 1) for line in result.stdout.splitlines())
    assert printed == expected
    out = tmp_path / "typed.onnx"
    written = onnxcraft("infer", str(files.mlp), "-o", str(out), "--json")
    assert written.returncode == 0, written.stderr
    assert json.loads(written.stdout)["types"] == expected
    model = onnx.load(str(out))
    onnx.checker.check_model(model, full_check=True)
    assert {v.name for v in model.graph.value_info} == set(expected) - {"Y"}


def test_run_writes_the_outputs_oc_evaluate_computes(files: Files, tmp_path: Path) -> None:
    x = np.load(files.x)
    expected = oc.evaluate(oc.load(files.mlp), {"X": x})["Y"]
    result = onnxcraft("run", str(files.mlp), "--input", f"X={files.x}", "-o", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Y  float32[2, 3] (6 values): min ")
    np.testing.assert_array_equal(np.load(tmp_path / "Y.npy"), expected)
    as_pb = onnxcraft(
        "run", str(files.mlp), "--input", f"X={files.x}", "-o", str(tmp_path), "--format", "pb"
    )
    assert as_pb.returncode == 0, as_pb.stderr
    tensor = onnx.TensorProto.FromString((tmp_path / "Y.pb").read_bytes())
    assert tensor.name == "Y"
    np.testing.assert_array_equal(onnx.numpy_helper.to_array(tensor), expected)


def test_run_no_fuse_runs_every_node_as_written(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    X = oc.arg("X", np.float32, (1, 16, 12, 12))
    w = rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    stats = [rng.uniform(0.5, 1.5, 16).astype(np.float32) for _ in range(4)]
    y = op.Relu(op.BatchNormalization(op.Conv(X, w, pads=[1] * 4), *stats).Y)
    path = tmp_path / "block.onnx"
    oc.save(oc.build([X], {"Y": y}), path)
    x = rng.standard_normal((1, 16, 12, 12)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    outputs = {}
    for flags in ((), ("--no-fuse",)):
        folder = tmp_path / ("written" if flags else "fused")
        result = onnxcraft(
            "run", str(path), "--input", f"X={tmp_path / 'x.npy'}", "-o", str(folder), *flags
        )
        assert result.returncode == 0, result.stderr
        outputs[bool(flags)] = np.load(folder / "Y.npy")
    model = oc.load(path)
    assert outputs[True].tobytes() == oc.evaluate(model, {"X": x}, fuse=False)["Y"].tobytes()
    assert outputs[False].tobytes() == oc.evaluate(model, {"X": x})["Y"].tobytes()
    assert outputs[False].tobytes() != outputs[True].tobytes()  # the fold rounds differently


def test_run_random_inputs_are_seeded(files: Files, tmp_path: Path) -> None:
    runs = [
        onnxcraft("run", str(files.mlp), "--random", "--seed", seed, "--dim", "N=5", "--json")
        for seed in ("1", "1", "2")
    ]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    first, again, other = (json.loads(r.stdout)["outputs"]["Y"] for r in runs)
    assert first == again != other
    assert first.startswith("float32[5, 3]")


def test_run_a_sequence_output_goes_to_a_pb_file(files: Files, tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.arange(3, dtype=np.float32))
    result = onnxcraft(
        "run", str(files.sequence), "--input", f"X={tmp_path / 'x.npy'}", "-o", str(tmp_path)
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("S  sequence of 2")
    sequence = onnx.SequenceProto.FromString((tmp_path / "S.pb").read_bytes())
    values = [onnx.numpy_helper.to_array(t) for t in sequence.tensor_values]
    np.testing.assert_array_equal(values[0], np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(values[1], -np.arange(3, dtype=np.float32))


def test_run_a_node_test_from_its_pb_files(tmp_path: Path) -> None:
    case = node_tests_root() / "test_conv_with_strides_padding"
    data = case / "test_data_set_0"
    result = onnxcraft(
        "run",
        str(case / "model.onnx"),
        "--input",
        f"x={data / 'input_0.pb'}",
        "--input",
        f"W={data / 'input_1.pb'}",
        "-o",
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    expected = onnx.numpy_helper.to_array(onnx.load_tensor(str(data / "output_0.pb")))
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), expected, rtol=1e-5, atol=1e-6)


def test_compare_against_float64(files: Files) -> None:
    result = onnxcraft("compare", str(files.mlp), "--random", "--dim", "N=4", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["against"] == "float64"
    assert report["agrees"] is True
    assert [v["name"] for v in report["outputs"]] == ["Y"]
    assert "hidden" in [v["name"] for v in report["values"]]
    text = onnxcraft("compare", str(files.mlp), "--random")
    assert text.returncode == 0
    assert "outputs agree" in text.stdout


def test_compare_names_the_node_where_a_changed_model_departs(files: Files, tmp_path: Path) -> None:
    model = oc.load_ir(files.mlp)
    add = next(n for n in model.graph.nodes if n.op_type == "Add" and "hidden" not in n.outputs)
    index, constant = next(
        (i, t) for i, t in enumerate(model.graph.initializers) if t.name in add.inputs
    )
    changed = constant.array() + np.float32(0.5)
    model.graph.initializers[index] = oc.ir.TensorData.from_array(
        constant.name, changed, constant.elem_type
    )
    oc.save(model, tmp_path / "changed.onnx")
    result = onnxcraft(
        "compare", str(tmp_path / "changed.onnx"), "--against", str(files.mlp), "--random", "--json"
    )
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["first_divergence"]["op_type"] == "Add"
    assert report["first_divergence"]["sources"] == [constant.name]
    assert report["first_difference"] == constant.name


def test_compare_against_onnxruntime_and_expected_files() -> None:
    case = node_tests_root() / "test_conv_with_strides_padding"
    data = case / "test_data_set_0"
    feeds = ["--input", f"x={data / 'input_0.pb'}", "--input", f"W={data / 'input_1.pb'}"]
    for against in ("onnxruntime", str(data)):
        result = onnxcraft("compare", str(case / "model.onnx"), "--against", against, *feeds)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "outputs agree" in result.stdout
        assert f"against {against}" in result.stdout
