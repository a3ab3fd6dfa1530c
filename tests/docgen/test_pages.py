"""What an operator page shows: descriptions, allowed values, axis bounds, computed changes,
and examples run through the evaluator (a wrong recorded output stops the build)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from onnxcraft import specs
from onnxcraft.docgen.build import coverage_of
from onnxcraft.docgen.examples import render_examples
from onnxcraft.docgen.pages import PageExtras, operator_page
from onnxcraft.errors import SpecError
from onnxcraft.specs.model import AllowedValue, AxisBound, OpSpec

ROUND = {
    "title": "Halves go to the even neighbour.",
    "inputs": {"X": {"dtype": "float32", "values": [[0.5, 1.5], [2.5, -0.5]]}},
    # the standard rounds half to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0
    "outputs": {"Y": {"dtype": "float32", "values": [[0.0, 2.0], [2.0, -0.0]]}},
}


def _with_examples(spec: OpSpec, *examples: dict[str, Any]) -> OpSpec:
    return dataclasses.replace(spec, examples=examples, examples_since=spec.since_version)


def _page(versions: list[OpSpec]) -> str:
    examples = {
        v.since_version: render_examples(v, "op", lambda s: True) for v in versions if v.examples
    }
    return operator_page(versions, coverage_of, (), PageExtras(examples))


def test_an_example_is_run_and_printed_with_its_call() -> None:
    spec = _with_examples(specs.get("Round", "", 22), ROUND)
    page = _page([spec])
    block = page.split("**Halves go to the even neighbour.**", 1)[1].split("```", 2)[1]
    assert "X: float32 (2, 2)\n[[ 0.5,  1.5],\n [ 2.5, -0.5]]" in block
    assert "Y = op.Round(X)" in block
    assert "Y: float32 (2, 2)\n[[ 0.,  2.],\n [ 2., -0.]]" in block


def test_a_wrong_recorded_output_stops_the_build() -> None:
    wrong = {**ROUND, "outputs": {"Y": {"dtype": "float32", "values": [[1.0, 2.0], [3.0, -1.0]]}}}
    spec = _with_examples(specs.get("Round", "", 22), wrong)
    with pytest.raises(SpecError, match=r"Round-22 example 1 .*Halves.* output Y") as caught:
        _page([spec])
    assert "but the spec records" in str(caught.value)


def test_an_unrecorded_example_is_refused_with_the_command_to_record_it() -> None:
    unrecorded = {k: v for k, v in ROUND.items() if k != "outputs"}
    with pytest.raises(SpecError, match=r"no recorded outputs.*--record"):
        _page([_with_examples(specs.get("Round", "", 22), unrecorded)])


def test_later_versions_point_to_the_examples_in_force() -> None:
    first = _with_examples(
        specs.get("Clip", "", 12),
        {
            "title": "Bounds on both sides.",
            "inputs": {
                "input": {"dtype": "float32", "values": [-2.0, 0.5, 3.0]},
                "min": {"dtype": "float32", "values": -1.0},
                "max": {"dtype": "float32", "values": 1.0},
            },
            "outputs": {"output": {"dtype": "float32", "values": [-1.0, 0.5, 1.0]}},
        },
    )
    later = dataclasses.replace(
        specs.get("Clip", "", 13), examples=first.examples, examples_since=12
    )
    page = _page([first, later])
    v13, v12 = page.split("## Version 13", 1)[1].split("## Version 12", 1)
    # printed once, under the newest version they cover, which is read first
    assert "Examples (written for version 12, they hold from there to here):" in v13
    assert "output = op.Clip(input, min, max)" in v13
    assert "[-1. ,  0.5,  1. ]" in v13
    assert "are shown under [version 13](#version-13); they give the same outputs" in v12
    assert "op.Clip(" not in v12


def test_an_omitted_optional_input_in_the_middle_is_none_in_the_call() -> None:
    spec = _with_examples(
        specs.get("Clip", "", 13),
        {
            "title": "Only an upper bound.",
            "inputs": {
                "input": {"dtype": "float32", "values": [-2.0, 3.0]},
                "max": {"dtype": "float32", "values": 1.0},
            },
            "outputs": {"output": {"dtype": "float32", "values": [-2.0, 1.0]}},
        },
    )
    assert "output = op.Clip(input, None, max)" in _page([spec])


def test_descriptions_values_and_axis_bounds_are_in_the_tables() -> None:
    resize = specs.get("Resize", "", 19)
    described = dataclasses.replace(
        resize,
        inputs=tuple(
            dataclasses.replace(p, description=f"Meaning of {p.name}.") for p in resize.inputs
        ),
        attributes=tuple(
            dataclasses.replace(
                a,
                description=f"Meaning of {a.name}.",
                values=(
                    AllowedValue("nearest", "Copies the closest pixel."),
                    AllowedValue("linear", "Interpolates between neighbours."),
                )
                if a.name == "mode"
                else (),
                axis=AxisBound("X") if a.name == "axes" else None,
            )
            for a in resize.attributes
        ),
    )
    page = _page([described])
    assert "| `roi` | `T2` | optional | Meaning of roi. |" in page
    assert (
        "| `mode` | STRING | default `'nearest'` | Meaning of mode. One of the values below. |"
        in (page)
    )
    assert "Values of `mode`:\n\n| value | meaning |\n| --- | --- |\n" in page
    assert "| `'linear'` | Interpolates between neighbours. |" in page
    assert f"Meaning of axes. Range: {AxisBound('X').describe()}." in page
    assert "an axis of X (r = its rank): -r … r-1" in page


def test_each_version_states_its_computed_changes() -> None:
    page = _page([specs.get("Clip", "", v) for v in (1, 6, 11, 12, 13)])
    v11 = page.split("## Version 11", 1)[1].split("## Version 6", 1)[0]
    assert "Compared with version 6:" in v11
    assert "- attributes `max`, `min` removed" in v11
    assert "- inputs `min` (optional), `max` (optional) added" in v11
    assert "Compared with" not in page.split("## Version 1\n", 1)[1]


def test_plain_text_stays_plain_in_markdown() -> None:
    relu = specs.get("Relu", "", 14)
    text = "Shaped [d, 3*h, 6*h] where i<j; `a*b` stays code."
    described = dataclasses.replace(
        relu, inputs=(dataclasses.replace(relu.inputs[0], description=text),)
    )
    page = _page([described])
    assert "Shaped [d, 3\\*h, 6\\*h] where i&lt;j; `a*b` stays code." in page
