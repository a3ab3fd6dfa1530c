"""Every recipe draws nodes that onnx's own tools accept: ``onnx.checker.check_model`` and
strict shape inference (with type checks and data propagation) on the one-node model that a
backend receives (inputs declared with a rank, outputs typed as onnxcraft's values).

A drawn case per operator version runs in the suite; ``ONNXCRAFT_RECIPE_CHECK_EXAMPLES=N``
draws N (fresh seeds with ``ONNXCRAFT_RECIPE_CHECK_SEED``). Cases onnx rejects although the
standard allows them are listed with the reason in ``data/onnx_rejects.json``.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import onnx
import pytest
from onnx import shape_inference

from onnxcraft import specs
from onnxcraft.dtypes import element_type_of
from onnxcraft.specs.model import OpSpec
from onnxcraft.testing.conformance import label_of
from onnxcraft.testing.examples import draw_cases, example_of, typed_model
from onnxcraft.testing.recipes import recipe_for

EXAMPLES = int(os.environ.get("ONNXCRAFT_RECIPE_CHECK_EXAMPLES", "1"))
SEED = int(os.environ.get("ONNXCRAFT_RECIPE_CHECK_SEED", "0"))
REJECTS: dict[str, dict[str, object]] = json.loads(
    (Path(__file__).parent / "data" / "onnx_rejects.json").read_text()
)
SPECS = [s for s in specs.schemas() if s.domain in ("", "ai.onnx.ml") and recipe_for(s) is not None]


def _elements(case: object) -> set[str]:
    found = set()
    for item in getattr(case, "inputs", ()):
        value = getattr(item, "value", None)
        if hasattr(value, "dtype"):
            found.add(element_type_of(value.dtype).name.lower())
    return found


@pytest.mark.parametrize("spec", SPECS, ids=label_of)
def test_drawn_nodes_pass_onnx_checker_and_shape_inference(spec: OpSpec) -> None:
    known = REJECTS.get(label_of(spec), {})
    for case in draw_cases(spec, EXAMPLES, seed=SEED):
        elements = _elements(case)
        if elements & set(known.get("dtypes", [])):  # type: ignore[arg-type]
            continue
        if known.get("mixed_types") and len(elements) > 1:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            example = example_of(case)
        assert example.expected is not None, example.error
        model = onnx.load_from_string(typed_model(example))
        try:
            onnx.checker.check_model(model)
            shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
        except Exception as exc:
            pytest.fail(f"{case.describe()}\nonnx rejects it: {exc}")


def test_the_list_of_rejects_names_operator_versions() -> None:
    labels = {label_of(s) for s in SPECS}
    assert set(REJECTS) <= labels
    assert all(entry.get("reason") for entry in REJECTS.values())
