"""The error measures of one value, against numbers worked out by hand, and the float64 twin."""

from __future__ import annotations

import math

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.compare.metrics import default_tolerance, measure
from onnxcraft.compare.widen import widen_model
from onnxcraft.dtypes import ElementType
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.opset.ai.onnx import v26


def _measure(actual: object, reference: object, **kwargs: float) -> object:
    return measure(
        "v",
        actual,
        reference,
        kind="output",
        producer="",
        rtol=kwargs.get("rtol"),
        atol=kwargs.get("atol"),
    )


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("steps", [0, 1, 3, 100])
def test_ulps_count_the_representable_numbers_between(dtype: type, steps: int) -> None:
    # mid-binade values: 100 steps stay within the binade, where every gap is the same
    reference = np.array([1.5, -3.25, 600.0, 1.25 * 2.0**-10], dtype=dtype)
    actual = reference.copy()
    for _ in range(steps):
        actual = np.nextafter(actual, np.array(np.inf, dtype=dtype))
    diff = _measure(actual, reference.astype(np.float64))
    assert diff.max_ulp == pytest.approx(steps)  # type: ignore[attr-defined]
    gaps = np.spacing(np.abs(reference)).astype(np.float64)
    assert diff.max_abs == pytest.approx((gaps * steps).max())  # type: ignore[attr-defined]


def test_bfloat16_ulps() -> None:
    # bfloat16 has 7 mantissa bits: at 1.0 a gap is 2**-7
    bits = np.array([0x3F80 + 2], dtype=np.uint16).view(oc.dtypes.numpy_dtype(ElementType.BFLOAT16))
    diff = _measure(bits, np.array([1.0]))
    assert diff.max_ulp == 2 and diff.max_abs == 2 * 2.0**-7  # type: ignore[attr-defined]


def test_nan_inf_and_zero_references() -> None:
    nan, inf = float("nan"), float("inf")
    agree = _measure(np.array([nan, inf, -inf, 0.0], np.float32), np.array([nan, inf, -inf, 0.0]))
    assert agree.agrees and agree.max_abs == 0  # type: ignore[attr-defined]
    off = _measure(np.array([nan, 1.0, 1e-30], np.float32), np.array([0.0, inf, 0.0]))
    # NaN against 0 and 1 against infinity are infinitely wrong; 1e-30 is within atol
    assert off.mismatched == 2 and math.isinf(off.max_abs)  # type: ignore[attr-defined]
    assert math.isinf(off.max_rel)  # type: ignore[attr-defined]


def test_integers_are_exact_and_shapes_must_match() -> None:
    big = np.array([2**62 + 1], np.int64)
    diff = _measure(big, np.array([2**62], np.int64))
    assert diff.max_abs == 1 and diff.max_ulp == 1 and diff.mismatched == 1  # type: ignore[attr-defined]
    shaped = _measure(np.zeros((2, 3), np.float32), np.zeros((3, 2)))
    assert not shaped.agrees and "shapes differ: [2, 3] against [3, 2]" in shaped.note  # type: ignore[attr-defined]
    strings = _measure(np.array(["a", "b"], object), np.array(["a", "c"], object))
    assert strings.mismatched == 1 and strings.max_ulp is None  # type: ignore[attr-defined]


def test_sequences_and_tolerances() -> None:
    seq = _measure([np.float32([1.0]), np.float32([2.0])], [np.float32([1.0]), np.float32([2.5])])
    assert seq.max_abs == 0.5 and seq.mismatched == 1  # type: ignore[attr-defined]
    assert "lengths differ" in _measure([np.float32([1.0])], []).note  # type: ignore[attr-defined]
    loose = _measure(np.float32([1.0]), np.array([1.1]), rtol=0.2)
    assert loose.agrees and loose.tolerance.rtol == 0.2  # type: ignore[attr-defined]
    assert default_tolerance(ElementType.INT64).rtol == 0
    assert default_tolerance(ElementType.FLOAT).rtol > default_tolerance(ElementType.DOUBLE).rtol


def test_the_float64_twin() -> None:
    X = oc.arg("X", np.float32, (3,))
    half = op.Cast(X, to=ElementType.FLOAT16)
    back = op.Mul(op.Cast(half, to=ElementType.FLOAT), op.Constant(value_float=1.5))
    Y = op.Add(back, np.float32(0.1))
    model = oc.build_ir(inputs=[X], outputs={"Y": Y})
    wide = widen_model(model)
    assert model.graph.inputs[0].type.elem_type == ElementType.FLOAT  # untouched
    assert wide.graph.inputs[0].type.elem_type == ElementType.DOUBLE
    casts = [a.value for n in wide.graph.nodes for a in n.attributes if a.name == "to"]
    assert casts == [ElementType.DOUBLE, ElementType.DOUBLE]
    assert all(t.elem_type == ElementType.DOUBLE for t in wide.graph.initializers)
    x = np.array([0.1, 1 / 3, 1000.1], np.float32)
    y = oc.evaluate(wide, {"X": x.astype(np.float64)})["Y"]
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y, x.astype(np.float64) * 1.5 + np.float64(np.float32(0.1)))
    report = oc.compare(model, {"X": x})
    assert report["Y"].max_abs > 0.01  # float16's rounding of 1000.1 * 1.5 shows


def test_a_model_without_a_float64_twin_is_refused_with_the_reason() -> None:
    X = oc.arg("X", np.float32, (3,))
    model = oc.build(inputs=[X], outputs={"Y": v26.BitCast(X, to=ElementType.INT32)})
    with pytest.raises(oc.CompareError, match=r"the reference \(float64\) cannot run: BitCast"):
        oc.compare(model, {"X": np.ones(3, np.float32)})
