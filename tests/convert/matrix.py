"""The conversion matrix: node-test models converted to target opsets, each result judged.

Shared by the suite's sample (``test_node_matrix.py``) and the full measurement
(``measure_conversions.py``). The judge of a converted model (ours or onnx's converter's) is
the same: ``oc.evaluate`` against the case's expected outputs, with the tolerance of the
node-conformance test; ours must also pass ``oc.check`` and keep the output types
``oc.infer_shapes`` gives the original.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.proto.serde import model_from_proto
from tests.evaluate.test_node_conformance import compare
from tests.node_cases import Case, load_case, manifest

KNOWN_FAILURES: dict[str, str] = json.loads(
    (Path(__file__).parents[1] / "evaluate" / "data" / "node_known_failures.json").read_text()
)

TARGETS = tuple(range(7, 29))


def eligible(name: str) -> bool:
    """Cases whose original evaluates to the expected outputs (so the judge is meaningful),
    written only in ai.onnx."""
    if name in KNOWN_FAILURES:
        return False
    domains = set(manifest()[name]["opset"])
    return domains <= {"ai.onnx", ""}


@dataclass
class Verdict:
    outcome: str  # "converted" | "refused" | "wrong" | "error"
    detail: str = ""
    exact: bool = False  # bit-exact against the original's evaluation


def _types(model: Any) -> list[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inferred = model_from_proto(oc.infer_shapes(model))
    return [(o.name, oc.proto and _elem(o.type)) for o in inferred.graph.outputs]


def _elem(t: Any) -> Any:
    return getattr(t, "elem_type", type(t).__name__)


# A decomposition into several float16 operators rounds at each step: its results are judged
# against the original's within a few units in the last place of float16 (2**-10 each).
HALF_RTOL = 4 * 2**-10


def _within_half_precision(got: Any, original: Any) -> bool:
    got, original = np.asarray(got), np.asarray(original)
    if got.dtype != np.float16 or original.dtype != np.float16 or got.shape != original.shape:
        return False
    a, b = got.astype(np.float64), original.astype(np.float64)
    return bool(np.all(np.abs(a - b) <= HALF_RTOL * np.maximum(np.abs(b), 2**-14) + 2**-24))


def judge(case: Case, converted: Any, original_values: dict[str, Any] | None) -> Verdict:
    try:
        values = oc.evaluate(converted, case.inputs)
    except Exception as exc:  # the judge records every failure as wrong
        return Verdict("wrong", f"{type(exc).__name__}: {str(exc)[:300]}")
    for name, expected in case.outputs.items():
        try:
            compare(name, values[name], expected)
        except Exception as exc:
            if original_values is not None and _within_half_precision(
                values[name], original_values[name]
            ):
                continue
            return Verdict("wrong", f"{type(exc).__name__}: {str(exc)[:300]}")
    exact = original_values is not None and all(
        _identical(values[k], original_values[k]) for k in case.outputs
    )
    return Verdict("converted", exact=exact)


def _identical(a: Any, b: Any) -> bool:
    if isinstance(a, list) or isinstance(b, list):
        return (
            isinstance(a, list)
            and isinstance(b, list)
            and len(a) == len(b)
            and all(_identical(x, y) for x, y in zip(a, b))
        )
    if a is None or b is None:
        return a is b
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def ours(case: Case, target: int, original_values: dict[str, Any]) -> Verdict:
    try:
        converted = oc.convert_version(case.model, target)
    except oc.VersionConversionError as exc:
        return Verdict("refused", exc.reason)
    except Exception as exc:
        return Verdict("error", f"{type(exc).__name__}: {str(exc)[:300]}")
    try:
        oc.check(converted)
    except Exception as exc:
        return Verdict("wrong", f"check: {str(exc)[:300]}")
    before, after = _types(case.model), _types(converted)
    if before != after:
        return Verdict("wrong", f"output types {before} -> {after}")
    return judge(case, converted, original_values)


def onnx_converter(case: Case, target: int, original_values: dict[str, Any]) -> Verdict:
    import onnx
    from onnx import version_converter

    model = onnx.load_from_string(case.model.SerializeToString())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            converted = version_converter.convert_version(model, target)
    except Exception as exc:
        return Verdict("refused", f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    try:
        return judge(case, converted, original_values)
    except Exception as exc:
        return Verdict("wrong", f"{type(exc).__name__}: {str(exc)[:300]}")


def original(case: Case) -> dict[str, Any]:
    return dict(oc.evaluate(case.model, case.inputs))


__all__ = [
    "TARGETS",
    "Verdict",
    "eligible",
    "judge",
    "load_case",
    "onnx_converter",
    "ours",
    "original",
]
