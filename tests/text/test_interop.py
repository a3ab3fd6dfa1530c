"""Interop is the test of the text form: on every ONNX node-test model and every example,

(a) text printed by onnx's printer parses with ``oc.parse`` to an equal model,
(b) text printed by ``oc.to_text(full_tensors=True)`` parses with onnx's parser to an equal
    model,
(c) ``oc.parse(oc.to_text(m, full_tensors=True))`` equals ``m``.

"Equal" is defined in ``normal_form.py``. Models that cannot pass a check are listed, with
the reason, in ``data/interop_known_failures.json`` (checked strictly: a listed model that
passes fails the test, so the list stays true). All 1,884 node-test models run (about 15 s
for the three checks).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import onnx
import pytest

from tests.node_cases import case_names, node_tests_root
from tests.text.interop import CHECKS, check, known_failures

REPO = Path(__file__).resolve().parents[2]
KNOWN = known_failures()


@pytest.fixture(scope="module")
def node_models() -> dict[str, bytes]:
    root = node_tests_root()
    return {name: (root / name / "model.onnx").read_bytes() for name in case_names()}


@pytest.mark.parametrize("which", CHECKS)
def test_every_node_model(which: str, node_models: dict[str, bytes]) -> None:
    failures = {}
    for name, data in node_models.items():
        problem = check(data, which)
        if problem is not None:
            failures[name] = problem
    known = KNOWN.get(which, {})
    unexpected = {name: why for name, why in failures.items() if name not in known}
    fixed = sorted(set(known) - set(failures))
    assert not unexpected, f"{which}: {len(unexpected)} models fail: {unexpected}"
    assert not fixed, f"{which}: listed as failing but pass: {fixed}"
    assert len(node_models) >= 1884


def _example_model(name: str, tmp_path: Path) -> bytes:
    spec = importlib.util.spec_from_file_location(
        f"example_{name}", REPO / "examples" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"example_{name}"] = module
    spec.loader.exec_module(module)
    path = tmp_path / f"{name}.onnx"
    if name == "large_mlp":
        module.main(str(path), hidden=32)  # the same structure, smaller weights
    else:
        module.main(str(path))
    # with any external data read in, so that the model's bytes hold everything
    return onnx.load(str(path)).SerializeToString()


EXAMPLES = sorted(p.stem for p in (REPO / "examples").glob("*.py"))


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples(name: str, tmp_path: Path) -> None:
    data = _example_model(name, tmp_path)
    for which in CHECKS:
        assert check(data, which) is None, (name, which, check(data, which))
