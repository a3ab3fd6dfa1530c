"""The conformance runner (issue 19): onnxcraft against itself agrees on every case; a broken
toy backend's wrong answers, crashes, hangs and refusals are each classified as such; the
reproducers load with onnx and hold the standard's answer; drawing respects a profile."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import onnxcraft as oc
import onnxcraft.testing
from onnxcraft.evaluate.evaluator import Evaluator
from onnxcraft.testing import Input, NodeCase
from onnxcraft.testing.conformance import (
    OnnxcraftBackend,
    Profile,
    conformance,
    difference,
    judge,
    main,
)
from onnxcraft.testing.conformance.worker import Outcome
from onnxcraft.testing.examples import backend_value, example_of, examples

E = oc.ElementType

# A sample of operators of every kind of value: tensors of many types, sequences, optionals,
# maps, subgraphs, functions with bodies.
SAMPLE = [
    "Relu-14",
    "TopK-11",
    "Add-14",
    "Cast-21",
    "HardSwish-14",
    "If-21",
    "SequenceConstruct-11",
    "OptionalHasElement-18",
    "ai.onnx.ml::DictVectorizer-1",
    "ReduceSum-13",
]


def test_onnxcraft_against_itself_agrees_on_every_case(tmp_path: Path) -> None:
    report = conformance(OnnxcraftBackend(), operators=SAMPLE, examples=4, output=tmp_path)
    assert report.cases() > 30
    assert report.all_agree, report.markdown()
    assert (tmp_path / "report.md").read_text().count("Every case agrees") == 1
    assert "<table>" in (tmp_path / "report.html").read_text()


class BrokenBackend:
    """onnxcraft's evaluator, broken on purpose: Relu answers x + 1, Sigmoid kills its
    process, Abs hangs, Neg refuses the model."""

    name = "broken"
    representation = "onnxcraft"
    profile = Profile()

    def prepare(self, model: bytes) -> Any:
        op_type = onnx.load_from_string(model).graph.node[0].op_type
        if op_type == "Neg":
            raise RuntimeError("Neg is not implemented")
        evaluator = Evaluator(model)

        def run(feeds: dict[str, Any]) -> list[Any]:
            if op_type == "Sigmoid":
                os.abort()
            if op_type == "Abs":
                time.sleep(60)
            results = evaluator.run(feeds)
            if op_type == "Relu":
                return [results["out0"] + np.ones((), results["out0"].dtype)]
            return list(results.values())

        return run


def test_a_broken_backend_is_classified(tmp_path: Path) -> None:
    report = conformance(
        BrokenBackend(),
        operators=["Relu-14", "Sigmoid-13", "Abs-13", "Neg-13", "Add-14"],
        examples=3,
        output=tmp_path,
        timeout=1.0,
    )
    by_operator = {label: dict(counts) for label, counts in report.counts.items()}
    assert by_operator["Relu-14"] == {"backend wrong": 3}
    assert by_operator["Sigmoid-13"] == {"backend crashed": 3}
    assert by_operator["Abs-13"] == {"backend crashed": 3}
    assert by_operator["Neg-13"] == {"backend refused": 3}
    assert by_operator["Add-14"] == {"agree": 3}
    causes = {(c.label, c.kind): c for c in report.causes.values()}
    assert "SIGABRT" in causes["Sigmoid-13", "backend crashed"].cause
    assert "timeout" in causes["Abs-13", "backend crashed"].cause
    assert "Neg is not implemented" in causes["Neg-13", "backend refused"].cause
    relu = causes["Relu-14", "backend wrong"]
    assert relu.decided_by == "the operator's function body"  # Relu-14 has one
    relu_causes = [c for c in report.causes.values() if c.label == "Relu-14"]
    assert sum(c.count for c in relu_causes) == 3
    assert report.markdown().count("| backend wrong | Relu-14 |") == len(relu_causes)

    # the reproducer of Relu: an ONNX node test whose output is the standard's answer
    folder = tmp_path / relu.reproducer
    model = onnx.load(str(folder / "model.onnx"))
    onnx.checker.check_model(model, full_check=True)
    data = folder / "test_data_set_0"
    if (data / "input_0.pb").exists():
        x = numpy_helper.to_array(onnx.load_tensor(str(data / "input_0.pb")))
        assert model.graph.input[0].name == "in0"
    else:  # the drawn input was an initializer
        x = numpy_helper.to_array(model.graph.initializer[0])
    y = numpy_helper.to_array(onnx.load_tensor(str(data / "output_0.pb")))
    np.testing.assert_array_equal(y, np.where(x > 0, x, np.zeros((), x.dtype)))
    # every reproducer folder loads
    for model_path in tmp_path.rglob("model.onnx"):
        onnx.checker.check_model(onnx.load(str(model_path)))


def test_a_disagreement_is_broken_by_the_function_body() -> None:
    # HardSwish-14 has a body (x * HardSigmoid(x, 1/6, 1/2)): if onnxcraft's kernel answered
    # something else and the backend the body's value, onnxcraft is the one wrong.
    x = np.array([-4.0, -3.0, -1.5, 0.0, 2.0, 3.5], np.float32)
    case = NodeCase("", "HardSwish", 14, (Input(x, oc.Tensor(np.float32, (6,))),))
    example = example_of(case)
    standard = x * np.clip(x / 6 + 0.5, 0, 1)
    wrong = standard + np.float32(1)
    mistaken = type(example)(example.case, example.model, example.feeds, example.outputs, (wrong,))
    verdict = judge(mistaken, Outcome("ran", (standard.astype(np.float32),)))
    assert verdict.kind == "onnxcraft wrong"
    assert verdict.decided_by == "the operator's function body"
    np.testing.assert_allclose(verdict.standard[0], standard, rtol=1e-6)
    verdict = judge(example, Outcome("ran", (wrong,)))
    assert verdict.kind == "backend wrong"


def test_examples_are_reproducible_and_keep_to_the_profile() -> None:
    profile = Profile(ir_version=9, opsets={"": 19}, element_types=frozenset({E.FLOAT16}))
    drawn = examples("Relu", 6, seed=3, opset=14, profile=profile)
    again = examples("Relu", 6, seed=3, opset=14, profile=profile)
    assert len(drawn) == 6
    assert [d.model for d in drawn] == [a.model for a in again]
    for item in drawn:
        model = onnx.load_from_string(item.model)
        assert model.ir_version == 9
        x = item.case.inputs[0].value
        assert x.dtype == np.float16
        np.testing.assert_array_equal(item.expected[0], np.maximum(x, np.float16(0)))
    # an operator version past the profile's opset draws nothing
    assert examples("Relu", 3, opset=14, profile=Profile(opsets={"": 13})) == []


def test_values_are_handed_over_as_ml_dtypes() -> None:
    bf16 = oc.numerics.from_float32(np.array([1.5, -2.0], np.float32), E.BFLOAT16)
    converted = backend_value(bf16)
    assert converted.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(converted.astype(np.float32), [1.5, -2.0])
    int4 = oc.numerics.from_float32(np.array([-8, 7, -1], np.float32), E.INT4)
    assert backend_value(int4).astype(np.int8).tolist() == [-8, 7, -1]
    mapped = backend_value({1: np.float32(2.5), 2: np.asarray(0.5, np.float32)})
    assert mapped == {1: 2.5, 2: 0.5} and all(type(v) is float for v in mapped.values())


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["--backend", "onnxcraft", "--operators", "Relu-14,Neg-13", "--examples", "2",
         "--output", str(tmp_path), "--quiet"]
    )  # fmt: skip
    assert code == 0
    assert "agree: 4" in capsys.readouterr().out
    assert (tmp_path / "report.md").exists()
    assert main(["--backend", "nonsense"]) == 2


def test_the_package_is_callable_as_the_runner() -> None:

    report = onnxcraft.testing.conformance(OnnxcraftBackend(), operators=["Neg-13"], examples=2)
    assert report.cases() == 2 and report.all_agree


def test_what_the_standard_leaves_open_is_ambiguous() -> None:
    # Squeeze with an empty axes input: no dimension, or every dimension of size 1?
    x = np.zeros((1, 2, 1), np.float32)
    axes = np.zeros((0,), np.int64)
    case = NodeCase(
        "",
        "Squeeze",
        13,
        (Input(x, oc.Tensor(np.float32, x.shape)), Input(axes, oc.Tensor(np.int64, (0,)))),
    )
    example = example_of(case)
    assert example.expected[0].shape == (1, 2, 1)
    verdict = judge(example, Outcome("ran", (x.reshape(2),)))
    assert verdict.kind == "ambiguous"
    assert "empty axes" in verdict.cause
    # Dropout in training mode draws a random mask: only types and shapes are compared
    ratio, training = np.asarray(0.5, np.float32), np.asarray(True)
    case = NodeCase(
        "",
        "Dropout",
        13,
        (
            Input(np.ones((4,), np.float32), oc.Tensor(np.float32, (4,))),
            Input(ratio, oc.Tensor(np.float32, ())),
            Input(training, oc.Tensor(np.bool_, ())),
        ),
        outputs=(True, True),
    )
    example = example_of(case)
    other = (np.array([2, 0, 2, 0], np.float32), np.array([True, False, True, False]))
    assert judge(example, Outcome("ran", other)).kind == "agree"
    # a map handed back with plain Python numbers is compared by value
    mapped = [{0: np.float32(0.25)}]
    assert difference_of(mapped, [{0: 0.25}]) is None
    assert difference_of(mapped, [{0: 0.5}]) is not None


def difference_of(expected: Any, got: Any) -> Any:
    return difference("ZipMap", 0, expected, got)


DOCS_REPRODUCERS = Path(__file__).resolve().parents[2] / "docs" / "conformance"


@pytest.mark.parametrize(
    "folder",
    sorted(p.parent for p in DOCS_REPRODUCERS.rglob("model.onnx")),
    ids=lambda p: p.name,
)
def test_the_filed_reproducers_load_with_onnx(folder: Path) -> None:
    model = onnx.load(str(folder / "model.onnx"))
    onnx.checker.check_model(model)
    data = folder / "test_data_set_0"
    inputs = sorted(data.glob("input_*.pb"))
    outputs = sorted(data.glob("output_*.pb"))
    assert len(inputs) == len([i for i in model.graph.input])
    assert len(outputs) == len(model.graph.output)
    for path in outputs:
        assert path.stat().st_size > 0
