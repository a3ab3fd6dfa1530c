"""Attribute values the spec allows: enumerated sets and axis bounds, at the call and in
``oc.check``, for a spec folder of one's own (the standard specs are tested in
``test_misuse.py`` once they carry the same fields)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.codegen.generator import generate_module
from onnxcraft.specs.registry import default_registry

DOMAIN = "com.example.bounds"


def _spec() -> dict[str, Any]:
    """Pick: one operator with a mode, a list of codes and three kinds of axis attribute."""
    return {
        "domain": DOMAIN,
        "name": "Pick",
        "summary": "Takes one slice of X along an axis, as a test of attribute rules.",
        "versions": [
            {
                "since_version": 1,
                "inputs": [{"name": "X", "type": "T"}],
                "outputs": [{"name": "Y", "type": "T"}],
                "type_constraints": [{"name": "T", "allowed": ["tensor(float)"]}],
                "attributes": [
                    {
                        "name": "mode",
                        "type": "STRING",
                        "default": "first",
                        "values": [
                            {"value": "first", "meaning": "The first slice."},
                            {"value": "last", "meaning": "The last slice."},
                        ],
                    },
                    {
                        "name": "codes",
                        "type": "INTS",
                        "values": [
                            {"value": 0, "meaning": "Nothing."},
                            {"value": 2, "meaning": "Something."},
                        ],
                    },
                    {"name": "axis", "type": "INT", "default": 0, "axis": {"input": "X"}},
                    {
                        "name": "flat_axis",
                        "type": "INT",
                        "axis": {"input": "X", "end_inclusive": True},
                    },
                    {
                        "name": "new_axes",
                        "type": "INTS",
                        "axis": {"input": "X", "rank_plus": "count"},
                    },
                ],
            }
        ],
    }


@pytest.fixture
def ops(tmp_path: Path) -> Iterator[Any]:
    folder = tmp_path / DOMAIN
    folder.mkdir()
    (folder / "Pick.json").write_text(json.dumps(_spec()))
    yield oc.load_opset(tmp_path)
    registry = default_registry()
    for root in registry.user_folders():
        registry.remove_folder(root)


def _x(rank: int = 2) -> oc.Var:
    return oc.arg("x", np.float32, (2,) * rank)


def test_allowed_values_pass(ops: Any) -> None:
    ops.Pick(_x(), mode="last", codes=[0, 2, 2], axis=-2, flat_axis=2, new_axes=[3, -4])


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ({"mode": "middle"}, "'mode' must be one of 'first', 'last', got 'middle'"),
        ({"codes": [0, 1]}, "'codes' must be one of 0, 2 (each element), got 1 in"),
        ({"mode": "FIRST"}, "got 'FIRST'"),
        ({"axis": 2}, "'axis' must be an axis in -2 … 1 (an axis of X (r = its rank)"),
        ({"axis": -3}, "got -3"),
        ({"flat_axis": 3}, "in -2 … 2"),
        ({"new_axes": [4]}, "in -3 … 2"),
    ],
)
def test_a_value_outside_the_spec_is_refused_at_the_call(
    ops: Any, attributes: dict[str, Any], message: str
) -> None:
    with pytest.raises(oc.OpAttributeError, match=r"^Pick: ") as caught:
        ops.Pick(_x(), **attributes)
    assert message in str(caught.value)


def test_an_axis_is_not_judged_when_the_rank_is_unknown(ops: Any) -> None:
    unranked = oc.arg("x", np.float32, None)
    ops.Pick(unranked, axis=7)


def _model(attributes: str, source: str = "x") -> Any:
    text = f"""
    <ir_version: 10, opset_import: ["" : 21, "{DOMAIN}" : 1]>
    g (float[2, 2] x) => (float y) {{
        z = Relu(x)
        y = {DOMAIN}.Pick <{attributes}> ({source})
    }}
    """
    return oc.parse(text)


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ('mode = "middle"', "Pick-1: attribute 'mode' must be one of 'first', 'last'"),
        ("codes = [0, 5]", "got 5 in"),
        ("axis = 2", "'axis' must be an axis in -2 … 1"),
        ("new_axes = [-5]", "in -3 … 2"),
    ],
)
def test_check_reports_the_same_for_a_model_from_elsewhere(
    ops: Any, attributes: str, message: str
) -> None:
    with pytest.raises(oc.ValidationError) as caught:
        oc.check(_model(attributes))
    assert message in str(caught.value)


def test_check_passes_allowed_values_and_unknown_ranks(ops: Any) -> None:
    oc.check(_model('mode = "last", codes = [2], axis = -2, flat_axis = 2'))
    oc.check(_model("axis = 9", source="z"))  # z's rank is not declared


def test_generated_signatures_use_literal_types(ops: Any) -> None:
    source = generate_module(
        domain=DOMAIN,
        opset=1,
        specs_here=default_registry().versions_of(DOMAIN, "Pick"),
        relative_path="p.py",
    ).text
    assert 'mode: _Literal["first", "last"] = "first"' in source
    assert "codes: _Seq[_Literal[0, 2]] | None = None" in source
