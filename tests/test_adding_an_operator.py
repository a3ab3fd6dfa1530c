"""docs/adding-an-operator.md works: its steps, run in an empty folder, add an operator of a
custom domain that the DSL, ``oc.check``, ``oc.infer_shapes``, ``oc.evaluate`` and the
property-test harness all know."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings

import onnxcraft as oc
from onnxcraft import specs
from onnxcraft.specs.registry import default_registry
from onnxcraft.testing import CaseFailure, Input, NodeCase, check_case, evaluate_case, infer_case
from onnxcraft.types import Tensor

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "adding-an-operator.md"
DOMAIN = "com.example.guide"


@pytest.fixture(scope="module")
def guide(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The namespace left by the guide's ``python`` blocks, run in order in an empty folder."""
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
    assert len(blocks) >= 6, "the guide lost its steps"
    folder = tmp_path_factory.mktemp("guide")
    namespace: dict[str, Any] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        for index, block in enumerate(blocks):
            exec(compile(block, f"{GUIDE.name} block {index + 1}", "exec"), namespace)
    namespace["folder"] = folder
    yield namespace
    # User spec folders are registered process-wide: forget them so later tests see the standard.
    registry = default_registry()
    for root in registry.user_folders():
        registry.remove_folder(root)


def test_the_spec_is_read_from_the_folder(guide: dict[str, Any]) -> None:
    assert (guide["folder"] / "my_specs" / DOMAIN / "LogSumExp.json").is_file()
    spec = specs.get("LogSumExp", domain=DOMAIN)
    assert spec.since_version == 1
    assert [a.name for a in spec.attributes] == ["axis", "keepdims"]


def test_the_dsl_types_the_operator_with_its_rule(guide: dict[str, Any]) -> None:
    x = oc.arg("X", np.float64, ("N", 5, None))
    assert guide["guide"].LogSumExp(x).type == Tensor(np.float64, ("N", 5, 1))
    assert guide["guide"].LogSumExp(x, axis=0, keepdims=0).shape == (5, None)
    with pytest.raises(oc.InferenceError, match="axis 3 is out of range for rank 3"):
        guide["guide"].LogSumExp(x, axis=3)


def test_check_infer_shapes_and_evaluate_see_the_operator(guide: dict[str, Any]) -> None:
    model, x = guide["model"], guide["x"]
    oc.check(model)
    assert guide["inferred"].graph.outputs[0].type == Tensor(np.float32, ("N",))
    y = oc.evaluate(model, {"X": x})["Y"]
    assert y.dtype == np.float32 and y.shape == (3,)
    expected = np.log(np.exp(x.astype(np.float64)).sum(axis=1))
    np.testing.assert_allclose(y, expected, rtol=1e-6)


def test_the_harness_runs_the_rule_and_the_kernel(guide: dict[str, Any]) -> None:
    x = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    case = NodeCase(DOMAIN, "LogSumExp", 1, (Input(x, Tensor(np.float64, (3, 2))),), {"axis": 0})
    assert infer_case(case) == [Tensor(np.float64, (1, 2))]
    (y,) = evaluate_case(case)
    np.testing.assert_allclose(y, np.log(np.exp(x).sum(axis=0, keepdims=True)))
    check_case(case)


def test_the_recipe_draws_nodes_that_check_case_accepts(guide: dict[str, Any]) -> None:
    spec = specs.get("LogSumExp", domain=DOMAIN)
    seen: list[NodeCase] = []

    @settings(max_examples=20, deadline=None, derandomize=True, database=None)
    @given(guide["log_sum_exp_nodes"](spec))
    def run(case: NodeCase) -> None:
        assert case.key == (DOMAIN, "LogSumExp", 1)
        check_case(case)
        seen.append(case)

    run()
    assert {case.attributes["keepdims"] for case in seen} == {0, 1}


def test_check_case_catches_a_rule_that_contradicts_the_kernel(
    guide: dict[str, Any], tmp_path: Path
) -> None:
    # The same operator under another domain, with a rule that forgets keepdims=0.
    broken = f"{DOMAIN}.broken"
    (tmp_path / broken).mkdir()
    spec = {**guide["spec"], "domain": broken}
    (tmp_path / broken / "LogSumExp.json").write_text(json.dumps(spec))
    oc.load_opset(tmp_path)

    def forgets_keepdims(input_types: list[Any], attributes: dict[str, Any]) -> list[Any]:
        rule = guide["log_sum_exp_rule"]
        return rule(input_types, {**attributes, "keepdims": 1})

    oc.register_rule(broken, "LogSumExp", 1, forgets_keepdims)
    oc.register_kernel(broken, "LogSumExp", 1, guide["log_sum_exp"])
    x = np.zeros((2, 3), np.float32)
    case = NodeCase(broken, "LogSumExp", 1, (Input(x, Tensor(np.float32, (2, 3))),))
    check_case(case)  # keepdims=1 (the default): the rule is right
    dropped = NodeCase(
        broken, "LogSumExp", 1, (Input(x, Tensor(np.float32, (2, 3))),), {"keepdims": 0}
    )
    with pytest.raises(CaseFailure, match="rank differs"):
        check_case(dropped)
