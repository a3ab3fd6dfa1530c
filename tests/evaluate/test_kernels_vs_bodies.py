"""Every operator version whose spec carries a function body: the kernel agrees with the body.

The standard defines these operators (Elu, Softplus, ReduceL2, MeanVarianceNormalization ...)
by a graph of other operators as well as by text. For each such version, hypothesis draws a few
valid nodes (the property-test recipes, derandomized), and each runs twice: through the
kernel, and through the body (the evaluator runs a body when the kernel table has no kernel for
the version, as it does for operators without one). The outputs must agree: integers and
booleans exactly; floats within a tolerance derived from the element type's precision (below).

Where the body itself departs from the standard's text, or is not valid for an element type,
the operator version and the element types are listed with the reason in
``data/function_body_differences.json``; those cases still run both ways (neither may fail) but
are not compared, and the test fails if an entry names no operator version with a body.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings

from onnxcraft import specs
from onnxcraft.dtypes import element_type_of
from onnxcraft.evaluate.evaluator import Evaluator
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.numerics import to_float32
from onnxcraft.specs.model import OpSpec
from onnxcraft.testing import NodeCase, build_model, node_cases
from tests.evaluate._body_kernels import BodyInstead

# A few examples per version keep the suite fast; exploring with many more (and fresh random
# draws) is one environment variable away, as for the operator property test.
EXAMPLES_PER_VERSION = int(os.environ.get("ONNXCRAFT_PROPERTY_EXAMPLES", "6"))
DERANDOMIZE = "ONNXCRAFT_PROPERTY_EXAMPLES" not in os.environ
DIFFERENCES: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "function_body_differences.json").read_text()
)
WITH_BODIES = [spec for spec in specs.schemas() if spec.functions]


def _label(spec: OpSpec) -> str:
    return f"{spec.domain or 'ai.onnx'}::{spec.name}-{spec.since_version}"


# The unit roundoff of each float type (half the distance from 1 to the next value).
_ROUNDOFF = {
    "float64": 2.0**-53,
    "float32": 2.0**-24,
    "float16": 2.0**-11,
    "bfloat16": 2.0**-8,
}


def _tolerance(type_name: str, body_nodes: int) -> float:
    """How far the body may be from the kernel, relative to max(|value|, 1).

    The kernel rounds once; each node of the body rounds its result once more, to the element
    type, and each rounding moves a value by at most one unit roundoff relative to it. The
    intermediate values of these bodies are of the output's magnitude or of magnitude about 1
    (1 + e^x, e^x - 1, x/6 + 1/2), hence the bound is relative to max(|value|, 1).
    """
    return (body_nodes + 1) * _ROUNDOFF[type_name]


def _numpy_name(value: np.ndarray) -> str:
    if value.dtype.names:
        return element_type_of(value.dtype).name.lower()
    return str(value.dtype)


def _compare(name: str, kernel: Any, body: Any, exempt: set[str], body_nodes: int) -> None:
    kernel, body = np.asarray(kernel), np.asarray(body)
    type_name = _numpy_name(kernel)
    if type_name in exempt:
        return
    assert (_numpy_name(body), body.shape) == (type_name, kernel.shape), name
    if kernel.dtype.names:  # bfloat16 and the other types numpy lacks: compare their values
        kernel, body = to_float32(kernel), to_float32(body)
    if kernel.dtype.kind not in "fc":
        np.testing.assert_array_equal(kernel, body, err_msg=name)
        return
    assert np.array_equal(np.isnan(kernel), np.isnan(body)), f"{name}: NaN at other places"
    finite = np.isfinite(kernel) & np.isfinite(body)
    assert np.array_equal(kernel[~finite], body[~finite], equal_nan=True), f"{name}: infinities"
    wide_kernel = kernel[finite].astype(np.float64)
    wide_body = body[finite].astype(np.float64)
    bound = _tolerance(type_name, body_nodes) * np.maximum(np.abs(wide_body), 1.0)
    excess = np.abs(wide_kernel - wide_body) - bound
    assert not (excess > 0).any(), (
        f"{name} ({type_name}): kernel {wide_kernel[excess > 0][:4]} vs body "
        f"{wide_body[excess > 0][:4]} (tolerance {_tolerance(type_name, body_nodes):.3g} "
        "relative to max(|value|, 1))"
    )


def _body_run(spec: OpSpec) -> Any:
    """The body the evaluator runs: the one for the version's opset, else the oldest after."""
    bodies = sorted(spec.functions, key=lambda body: body.opset)
    return next((b for b in bodies if b.opset >= spec.since_version), bodies[-1])


def _exempt_types(spec: OpSpec) -> set[str]:
    return set(DIFFERENCES.get(_label(spec), {}).get("dtypes", []))


@pytest.mark.parametrize("spec", WITH_BODIES, ids=_label)
def test_kernel_agrees_with_the_function_body(spec: OpSpec) -> None:
    exempt = _exempt_types(spec)
    body_nodes = len(_body_run(spec).nodes)
    registry = BodyInstead(spec.key)

    @settings(
        max_examples=EXAMPLES_PER_VERSION,
        deadline=None,
        derandomize=DERANDOMIZE,
        database=None,
        phases=(Phase.explicit, Phase.generate),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(node_cases(spec))
    def run(case: NodeCase) -> None:
        model, feeds = build_model(case)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NaN/overflow in drawn values
            by_kernel = Evaluator(model).run(feeds)
            by_body = Evaluator(model, kernels=registry).run(feeds)
        for name, value in by_kernel.items():
            _compare(f"{case.describe()} {name}", value, by_body[name], exempt, body_nodes)

    run()


def test_differences_name_operator_versions_with_bodies() -> None:
    labels = {_label(spec) for spec in WITH_BODIES}
    assert set(DIFFERENCES) <= labels
    for label, entry in DIFFERENCES.items():
        assert entry["reason"].strip() and entry["dtypes"], label


def test_every_body_is_compared() -> None:
    assert len(WITH_BODIES) >= 40
    assert all(default_registry().lookup(*spec.key) is not None for spec in WITH_BODIES)
