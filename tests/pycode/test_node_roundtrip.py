"""``oc.to_python`` on every ONNX node-test model: the generated module rebuilds the model
exactly (``roundtrip.differences``) and it computes the same outputs, bit for bit.

The models the DSL cannot write back are listed, each with its reason, in
``to_python_gaps.json``; a listed model that round-trips makes the test fail, so the list
stays true. All 1,884 models take about 10 s on one core, so the suite runs them all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.node_cases import case_names
from tests.pycode.node_roundtrip import check_case

GAPS = json.loads((Path(__file__).with_name("to_python_gaps.json")).read_text())


@pytest.mark.parametrize("name", case_names())
def test_round_trip(name: str, tmp_path: Path) -> None:
    reason = check_case(name, tmp_path)
    if name in GAPS:
        assert reason is not None, f"{name} now round-trips: remove it from to_python_gaps.json"
        return
    assert reason is None, reason


def test_the_gaps_are_node_tests() -> None:
    unknown = set(GAPS) - set(case_names())
    assert not unknown, unknown
    assert all(isinstance(v, str) and v for v in GAPS.values())


def test_the_generated_code_passes_ruff(tmp_path: Path) -> None:
    """Every node-test model's module passes ruff with the project's configuration."""
    import onnxcraft as oc
    from tests.node_cases import load_case
    from tests.pycode.test_to_python import ruff_problems

    for name in case_names():
        try:
            source = oc.to_python(load_case(name).model)
        except oc.CodeGenerationError:
            assert name in GAPS
            continue
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    assert ruff_problems(tmp_path) == ""
