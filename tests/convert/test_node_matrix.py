"""A deterministic sample of the conversion matrix (``matrix.py``): node-test models converted
to target opsets, each conversion either refused with a reason or checked, typed alike and
evaluating to the expected outputs; and onnxruntime (the oracle) running downgraded models
within its opset range to the same values. The whole matrix is ``measure_conversions.py``
(``ONNXCRAFT_CONVERT_FULL=1`` runs it here too)."""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from tests.convert.matrix import KNOWN_FAILURES, TARGETS, eligible, load_case, original, ours
from tests.node_cases import case_names

FULL = os.environ.get("ONNXCRAFT_CONVERT_FULL") == "1"
_ELIGIBLE = [n for n in case_names() if n == "<node tests missing>" or eligible(n)]
SAMPLE = _ELIGIBLE if FULL else _ELIGIBLE[::23]
SAMPLE_TARGETS = TARGETS if FULL else (7, 9, 11, 13, 16, 18, 21, 25)


@pytest.mark.parametrize("name", SAMPLE)
def test_convert_case(name: str) -> None:
    case = load_case(name)
    values = original(case)
    for target in SAMPLE_TARGETS:
        verdict = ours(case, target, values)
        assert verdict.outcome in ("converted", "refused"), (name, target, verdict.detail)
        if verdict.outcome == "refused":
            assert verdict.detail, (name, target)


ORT_OPSETS = range(7, 22)  # onnxruntime loads older opsets too; its newest is above


def _plain_arrays(name: str) -> bool:
    """Whether every input and output is a plain array: onnxruntime's Python API takes no
    sequences or maps here, nor onnxcraft's encodings of bfloat16, float8 and 4-bit types."""
    if name == "<node tests missing>":
        return True
    case = load_case(name)
    values = (*case.inputs.values(), *case.outputs.values())
    return all(isinstance(v, np.ndarray) and not v.dtype.names for v in values)


# Every 61st eligible case; the few with values onnxruntime cannot take are left out here
# (their conversions are judged by onnxcraft's evaluator in test_convert_case).
ORT_SAMPLE = [name for name in _ELIGIBLE[::61] if _plain_arrays(name)]


@pytest.mark.parametrize("name", ORT_SAMPLE)
def test_onnxruntime_runs_downgraded(name: str) -> None:
    import onnxruntime as ort

    case = load_case(name)
    source = case.model.opset_import[0].version
    from tests.evaluate.test_node_conformance import compare

    for target in (t for t in ORT_OPSETS if t < source):
        try:
            converted = oc.convert_version(case.model, target)
        except oc.VersionConversionError:
            continue
        session = _session(ort, converted)
        if session is None:
            continue
        outputs = session.run(None, dict(case.inputs))
        for info, got in zip(session.get_outputs(), outputs):
            compare(f"{name}@{target}:{info.name}", got, case.outputs[info.name])


def _session(ort: Any, model: Any) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 4
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ort.InferenceSession(
                model.SerializeToString(), options, providers=["CPUExecutionProvider"]
            )
    except Exception as exc:  # the kernels onnxruntime lacks at an old opset
        if "NOT_IMPLEMENTED" in str(exc) or "Could not find an implementation" in str(exc):
            return None
        raise


def _ml_case_names() -> list[str]:
    from tests.node_cases import manifest

    found = sorted(n for n, entry in manifest().items() if "ai.onnx.ml" in entry["opset"])
    return [n for n in found if n not in KNOWN_FAILURES]


def test_ml_domain_every_target() -> None:
    """Every ai.onnx.ml node test to ml opsets 1..5: refused with a reason, or right."""
    from tests.evaluate.test_node_conformance import compare

    names = _ml_case_names()
    assert names
    converted = 0
    for name in names:
        case = load_case(name)
        for target in range(1, 6):
            try:
                model = oc.convert_version(case.model, {"ai.onnx.ml": target})
            except oc.VersionConversionError as exc:
                assert exc.reason
                continue
            oc.check(model)
            values = oc.evaluate(model, case.inputs)
            for output, expected in case.outputs.items():
                compare(f"{name}@ml{target}:{output}", values[output], expected)
            converted += 1
    assert converted > 0
