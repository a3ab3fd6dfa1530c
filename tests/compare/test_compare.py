"""oc.compare: where two runs of a model part ways, and by how much.

The oracles: a planted wrong constant (where the runs must part is known by construction);
numpy in float64 (the error of the float32 run of a linear model); onnxruntime (node-test
models, intermediates included); the backend tests' own expected outputs.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.compare.report import CompareReport
from onnxcraft.opset.ai.onnx import v21 as op
from tests.node_cases import load_case, node_tests_root

REPO = Path(__file__).resolve().parents[2]


def _chain(values: list[np.ndarray]) -> oc.proto.ModelProto:
    """Constant -> Add -> Tanh, repeated: three nodes per constant."""
    X = oc.arg("X", np.float32, ("N", 8))
    h = X
    for value in values:
        h = op.Tanh(op.Add(h, op.Constant(value=value)))
    return oc.build(inputs=[X], outputs={"Y": h}, name="chain")


def _constants(count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    return [rng.uniform(-0.5, 0.5, 8).astype(np.float32) for _ in range(count)]


def test_a_wrong_constant_deep_in_a_50_node_model_is_named_first() -> None:
    constants = _constants(17)  # 51 nodes
    planted = 12  # the 13th constant: node 36 of 51
    wrong = [c.copy() for c in constants]
    wrong[planted][3] += np.float32(0.25)
    good, bad = _chain(constants), _chain(wrong)
    model_ir = _ir(bad)
    assert len(model_ir.graph.nodes) == 51
    target = model_ir.graph.nodes[3 * planted]
    assert target.op_type == "Constant"
    feeds = {"X": np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)}

    report = oc.compare(bad, feeds, against=good)
    assert report.first_divergence is not None
    assert report.first_divergence.index == 3 * planted
    assert report.first_divergence.name == target.name
    assert report.first_divergence.outputs == tuple(target.outputs)
    assert report.first_difference == target.outputs[0]
    assert report[target.outputs[0]].max_abs == pytest.approx(0.25)
    assert not report.agrees
    # every value before the planted node agrees exactly (the same computation)
    before = [d for d in report.values() if d.kind == "node output"][: 3 * planted]
    assert all(d.agrees and d.max_abs == 0 for d in before)
    assert str(report.first_divergence) in str(report)


def _ir(model: Any) -> oc.ir.Model:
    from onnxcraft.io import model_ir

    return model_ir(model)


def test_a_changed_initializer_is_the_source_of_the_first_divergence() -> None:
    X = oc.arg("X", np.float32, (2, 3))
    w = np.arange(9, dtype=np.float32).reshape(3, 3)
    good = oc.build_ir(inputs=[X], outputs={"Y": op.Relu(op.MatMul(op.Neg(X), w))})
    bad = oc.build_ir(inputs=[X], outputs={"Y": op.Relu(op.MatMul(op.Neg(X), w * 2))})
    feeds = {"X": -np.ones((2, 3), np.float32)}
    report = oc.compare(bad, feeds, against=good)
    divergence = report.first_divergence
    assert divergence is not None and divergence.op_type == "MatMul"
    (weight,) = [t.name for t in bad.graph.initializers]
    assert divergence.sources == (weight,)
    assert report.first_difference == weight
    assert "which differ" in str(divergence)


def test_float64_error_of_a_linear_model_is_the_float32_rounding() -> None:
    rng = np.random.default_rng(2)
    w = rng.standard_normal((64, 16)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    X = oc.arg("X", np.float32, ("N", 64))
    model = oc.build(inputs=[X], outputs={"Y": op.Add(op.MatMul(X, w), b)})
    x = rng.standard_normal((8, 64)).astype(np.float32)
    report = oc.compare(model, {"X": x}, against="float64")
    exact = x.astype(np.float64) @ w.astype(np.float64) + b.astype(np.float64)
    got = oc.evaluate(model, {"X": x})["Y"].astype(np.float64)
    y = report["Y"]
    assert y.max_abs == pytest.approx(np.abs(got - exact).max(), rel=1e-12)
    assert y.max_rel == pytest.approx((np.abs(got - exact) / np.abs(exact)).max(), rel=1e-12)
    ulps = np.abs(got - exact) / np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    assert y.max_ulp == pytest.approx(ulps.max(), rel=1e-12)
    assert y.max_abs > 0 and y.agrees and report.agrees
    assert report.to_dict()["outputs"][0]["name"] == "Y"


def _example(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(
        f"example_{name}", REPO / "examples" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"example_{name}"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(p.stem for p in (REPO / "examples").glob("*.py")))
def test_float32_against_float64_on_every_example(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.onnx"
    _example(name).main(str(path))
    model = oc.load_ir(path)
    inputs = list(model.graph.inputs)
    rng = np.random.default_rng(1)
    feeds = {
        i.name: rng.standard_normal([d if isinstance(d, int) else 6 for d in i.type.shape]).astype(
            np.float32
        )
        for i in inputs
    }
    report = oc.compare(model, feeds, against="float64")
    assert report.agrees, str(report)
    computed = [name for node in model.graph.nodes for name in node.outputs if name]
    assert [d.name for d in report.values() if d.kind in ("node output", "output")] == computed
    assert report.unmatched == []
    floats = [d for d in report.values() if d.type.startswith("float[")]
    assert floats and all(d.max_ulp is not None for d in floats)


NODE_CASES = [
    "test_conv_with_strides_padding",
    "test_gemm_all_attributes",
    "test_softmax_example",
    "test_lstm_defaults",
    "test_layer_normalization_4d_axis0",
    "test_resize_upsample_scales_linear",
    "test_split_variable_parts_1d_opset18",  # outputs named output_1, output_2: by position
    "test_layer_normalization_2d_axis0_expanded_ver18",  # many intermediates
]


@pytest.mark.parametrize("case", NODE_CASES)
def test_against_onnxruntime_on_node_tests(case: str) -> None:
    loaded = load_case(case)
    report = oc.compare(loaded.model, loaded.inputs, against="onnxruntime")
    assert report.agrees, str(report)
    assert report.against == "onnxruntime"
    model = _ir(loaded.model)
    expected = {name for node in model.graph.nodes for name in node.outputs if name}
    assert {d.name for d in report.values() if d.kind != "input"} == expected
    # and against the test's own expected outputs, from its folder
    folder = node_tests_root() / case / "test_data_set_0"
    from_files = oc.compare(loaded.model, loaded.inputs, against=folder)
    assert from_files.agrees and set(from_files.outputs) <= set(from_files)


def test_expected_values_as_a_dict_and_a_folder(tmp_path: Path) -> None:
    X = oc.arg("X", np.float32, (3,))
    model = oc.build(inputs=[X], outputs={"Y": op.Exp(X)})
    x = np.array([0.0, 1.0, 2.0], np.float32)
    good = oc.compare(model, {"X": x}, {"Y": np.exp(x.astype(np.float64))})
    assert good.agrees and list(good) == ["Y"]
    bad = oc.compare(model, {"X": x}, {"Y": np.exp(x) + 1})
    assert not bad.agrees and bad["Y"].mismatched == 3
    assert bad.first_divergence is not None and bad.first_divergence.op_type == "Exp"
    with pytest.raises(oc.CompareError, match=r"name \['Z'\], which the model does not compute"):
        oc.compare(model, {"X": x}, {"Z": x})
    # a folder of files named after values (as `onnxcraft run -o` writes them)
    np.save(tmp_path / "Y.npy", np.exp(x) + 1)
    from_folder = oc.compare(model, {"X": x}, tmp_path)
    assert list(from_folder) == ["Y"] and from_folder["Y"].mismatched == 3


def test_a_callable_backend_and_a_missing_one(monkeypatch: pytest.MonkeyPatch) -> None:
    X = oc.arg("X", np.float32, (2,))
    model = oc.build(inputs=[X], outputs={"Y": op.Neg(X)})
    x = np.ones(2, np.float32)

    def negate(model_ir: oc.ir.Model, feeds: dict[str, Any]) -> dict[str, Any]:
        return {"Y": -feeds["X"] + np.float32(1e-3)}

    report = oc.compare(model, {"X": x}, negate)
    assert report.against == "negate" and report["Y"].max_abs == pytest.approx(1e-3, rel=1e-4)
    assert report.agrees is False  # 1e-3 is beyond float's default tolerance
    assert oc.compare(model, {"X": x}, negate, atol=1e-2).agrees
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, "onnxcraft.compare.onnxruntime_backend", raising=False)
    with pytest.raises(oc.CompareError, match=r"needs the onnxruntime package.*pip install"):
        oc.compare(model, {"X": x}, "onnxruntime")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"against": 3}, "against must be 'float64', 'onnxruntime', a model"),
        ({"against": "float64", "rtol": -1.0}, "rtol must be a number >= 0"),
        ({"against": "no/such/file.onnx"}, "no such file or folder"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    X = oc.arg("X", np.float32, (2,))
    model = oc.build(inputs=[X], outputs={"Y": op.Neg(X)})
    with pytest.raises(oc.CompareError, match=message):
        oc.compare(model, {"X": np.ones(2, np.float32)}, **kwargs)


def test_the_report_as_data_and_as_text() -> None:
    X = oc.arg("X", np.float32, (2,))
    model = oc.build(inputs=[X], outputs={"Y": op.Sqrt(X)})
    report = oc.compare(model, {"X": np.array([2.0, 3.0], np.float32)})
    assert isinstance(report, CompareReport)
    data = report.to_dict()
    assert set(data) == {
        "model",
        "against",
        "agrees",
        "outputs",
        "first_divergence",
        "first_difference",
        "values",
        "unmatched",
    }
    assert data["values"][-1]["name"] == "Y" and data["values"][-1]["max_ulp"] <= 0.5
    text = str(report).splitlines()
    assert text[0] == "compare model 'main_graph' against float64"
    assert text[-1].startswith("Y ") and text[-1].endswith("ok")
