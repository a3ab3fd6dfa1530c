"""The spec examples' JSON values, decoding and recording (``onnxcraft.testing.spec_examples``)."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from onnxcraft import specs
from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.errors import SpecError
from onnxcraft.numerics import to_float32
from onnxcraft.testing.spec_examples import (
    decode_value,
    encode_value,
    examples_at,
    mismatches,
    record_file,
    same_value,
)

SPEC_ROOT = specs.loader.default_spec_root()


@pytest.mark.parametrize(
    "value",
    [
        np.array([[1.5, -0.0], [math.nan, -math.inf]], np.float32),
        np.array([0.1, 1e-45, 3.4e38], np.float32),
        np.array([0.1, 2.0**-1074], np.float64),
        np.array(7, np.int64),
        np.zeros((0, 3), np.int32),
        np.array([True, False]),
        np.array(["a", "ü"], dtype=object),
        np.array([1 + 2j], np.complex64),
        [np.array([1.0], np.float32), np.array([2.0, 3.0], np.float32)],
        {3: np.float32(0.25), 7: np.float32(0.75)},
        {"a": np.int64(1)},
    ],
    ids=repr,
)
def test_a_value_survives_encoding_exactly(value: Any) -> None:
    text = json.dumps(encode_value(value))
    assert same_value(value, decode_value(json.loads(text)))


def test_low_precision_values_are_written_as_the_numbers_they_hold() -> None:
    data = {"dtype": "bfloat16", "values": [1.1, 2.5]}
    array = decode_value(data)
    assert element_type_of(array.dtype) == ElementType.BFLOAT16
    assert to_float32(array).tolist() == [1.1015625, 2.5]
    assert encode_value(array) == {"dtype": "bfloat16", "values": [1.1015625, 2.5]}


def test_float32_values_are_written_at_their_shortest() -> None:
    assert encode_value(np.array([0.1], np.float32))["values"] == [0.1]


def test_same_value_is_exact() -> None:
    a = np.array([1.0, math.nan], np.float32)
    assert same_value(a, a.copy())
    assert not same_value(a, a.astype(np.float64))
    assert not same_value(a, np.array([1.0, 0.0], np.float32))
    assert not same_value(np.zeros((2, 1)), np.zeros((1, 2)))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"dtype": "float99", "values": [1]}, "unknown dtype 'float99'"),
        ({"values": [1]}, "needs a 'dtype'"),
        ([1, 2], "expected an object"),
    ],
)
def test_malformed_values_are_spec_errors(data: Any, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        decode_value(data)


def _with_examples(op: str, version: int, *examples: dict[str, Any]) -> specs.OpSpec:
    spec = specs.get(op, "", version)
    return dataclasses.replace(spec, examples=examples, examples_since=spec.since_version)


def test_an_example_runs_and_a_wrong_record_is_reported() -> None:
    example = {
        "title": "Negative values become zero.",
        "inputs": {"X": {"dtype": "float32", "values": [-1.0, 2.0]}},
        "outputs": {"Y": {"dtype": "float32", "values": [0.0, 2.0]}},
    }
    spec = _with_examples("Relu", 14, example)
    assert mismatches(spec) == []
    wrong = dict(example, outputs={"Y": {"dtype": "float32", "values": [0.0, 3.0]}})
    (problem,) = mismatches(_with_examples("Relu", 14, wrong))
    assert "output Y is" in problem and "Relu-14 example 1" in problem


def test_variadic_inputs_and_outputs_and_omitted_optional_inputs() -> None:
    split = {
        "title": "Two halves.",
        "inputs": {"input": {"dtype": "int64", "values": [1, 2, 3, 4]}},
        "attributes": {"num_outputs": 2},
        "outputs": {"outputs": [None, None]},
    }
    (example,) = examples_at(_with_examples("Split", 18, split))
    got = example.evaluate()
    assert [v.tolist() for v in got["outputs"]] == [[1, 2], [3, 4]]


def test_unknown_input_names_are_spec_errors() -> None:
    bad = {"title": "Typo.", "inputs": {"x": {"dtype": "float32", "values": [1.0]}}}
    with pytest.raises(SpecError, match=r"no input named \['x'\]"):
        examples_at(_with_examples("Relu", 14, bad))


def test_the_recorder_writes_outputs_through_its_command(tmp_path: Path) -> None:
    folder = tmp_path / "ai.onnx"
    folder.mkdir()
    path = folder / "Abs.json"
    shutil.copy(SPEC_ROOT / "ai.onnx" / "Abs.json", path)
    document = json.loads(path.read_text())
    document["versions"][-1]["examples"] = [
        {"title": "Signs dropped.", "inputs": {"X": {"dtype": "int32", "values": [-3, 4]}}}
    ]
    path.write_text(json.dumps(document))
    command = [sys.executable, "-m", "onnxcraft.testing.spec_examples"]
    recorded = subprocess.run(
        [*command, "--record", str(path)], capture_output=True, text=True, check=False
    )
    assert recorded.returncode == 0, recorded.stderr
    written = json.loads(path.read_text())["versions"][-1]["examples"][0]["outputs"]
    assert written == {"Y": {"dtype": "int32", "values": [3, 4]}}
    checked = subprocess.run(
        [*command, "--check", str(path)], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stderr


def test_sequences_of_tensors_of_different_shapes_are_inputs() -> None:
    example = {
        "title": "Two tensors of different lengths.",
        "inputs": {
            "input_sequence": {
                "sequence": [
                    {"dtype": "int64", "values": [1, 2]},
                    {"dtype": "int64", "values": [3]},
                ]
            }
        },
    }
    (decoded,) = examples_at(_with_examples("SequenceLength", 11, example))
    assert decoded.evaluate()["length"].tolist() == 2


def test_a_variadic_output_holding_one_sequence_stays_one_output() -> None:
    branch = "b () => (seq(float) s) { s = SequenceEmpty <dtype = 1> () }"
    example = {
        "title": "A branch returning a sequence.",
        "inputs": {"cond": {"dtype": "bool", "values": True}},
        "attributes": {"then_branch": {"graph": branch}, "else_branch": {"graph": branch}},
    }
    (decoded,) = examples_at(_with_examples("If", 21, example))
    assert decoded.evaluate()["outputs"] == [[]]


def test_an_empty_sequence_is_recorded_with_its_element_type(tmp_path: Path) -> None:
    folder = tmp_path / "ai.onnx"
    folder.mkdir()
    path = folder / "SequenceEmpty.json"
    document = json.loads((SPEC_ROOT / "ai.onnx" / "SequenceEmpty.json").read_text())
    document["versions"][-1]["examples"] = [
        {"title": "Of int64 tensors.", "inputs": {}, "attributes": {"dtype": 7}}
    ]
    path.write_text(json.dumps(document))
    assert record_file(path) == []
    written = json.loads(path.read_text())["versions"][-1]["examples"][0]["outputs"]
    assert written == {"output": {"sequence": [], "dtype": "int64"}}


# -- comparing recorded values ---------------------------------------------------------------


def test_floats_agree_to_a_few_units_in_the_last_place_across_cpus() -> None:
    # numpy's exp and friends differ by an ulp or two between AVX2 and AVX-512 machines
    three = np.array([3.0], np.float32)
    one_up = np.nextafter(three, np.float32(4))
    assert same_value(three, one_up)
    far = three
    for _ in range(5):
        far = np.nextafter(far, np.float32(4))
    assert not same_value(three, far)
    assert not same_value(three, three.astype(np.float64))  # the type still counts


def test_nan_and_infinities_must_sit_where_recorded() -> None:
    want = np.array([np.nan, np.inf, 1.0], np.float32)
    assert same_value(want, want.copy())
    assert not same_value(want, np.array([1.0, np.inf, 1.0], np.float32))
    assert not same_value(want, np.array([np.nan, -np.inf, 1.0], np.float32))
    assert not same_value(want, np.array([np.nan, np.finfo(np.float32).max, 1.0], np.float32))


def test_complex_parts_are_compared_one_by_one() -> None:
    z = np.array([1 + 2j], np.complex64)
    nudged = np.array([complex(1, np.nextafter(np.float32(2), np.float32(3)))], np.complex64)
    assert same_value(z, nudged)
    assert not same_value(z, np.array([1 + 3j], np.complex64))


def test_integers_stay_exact() -> None:
    assert not same_value(np.array([3], np.int64), np.array([4], np.int64))
