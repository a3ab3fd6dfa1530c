"""float16 activations are computed in float32 and rounded once (issue 19), and TopK's
``largest`` orders signed integers without wrapping.

The oracle is the activation's formula evaluated in float64 on every finite float16 value and
rounded to float16 once; onnxcraft may differ from it by at most one unit in the last place
(its float32 intermediate can round a value lying almost exactly between two float16 values
the other way). Before the fix, Sigmoid gave 0 for x <= -8 and HardSwish was off by up to 16
units near -3, since each step of the formula rounded to float16.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.testing import Input, NodeCase, evaluate_case

_erf = np.vectorize(math.erf)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.exp(-np.logaddexp(0.0, -x))


ORACLES: dict[str, tuple[int, dict[str, float], Callable[[np.ndarray], np.ndarray]]] = {
    "Sigmoid": (13, {}, _sigmoid),
    "HardSwish": (14, {}, lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    "HardSigmoid": (6, {"alpha": 0.3, "beta": 0.4}, lambda x: np.clip(0.3 * x + 0.4, 0, 1)),
    "Softsign": (1, {}, lambda x: x / (1 + np.abs(x))),
    "Softplus": (1, {}, lambda x: np.logaddexp(0.0, x)),
    "Elu": (6, {"alpha": 0.7}, lambda x: np.where(x > 0, x, 0.7 * np.expm1(np.minimum(x, 0)))),
    "Celu": (
        12,
        {"alpha": 1.3},
        lambda x: np.maximum(x, 0) + np.minimum(0, 1.3 * np.expm1(np.minimum(x, 0) / 1.3)),
    ),
    "Mish": (18, {}, lambda x: x * np.tanh(np.logaddexp(0.0, x))),
    "Gelu": (20, {}, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    "LeakyRelu": (6, {"alpha": 0.1}, lambda x: np.where(x >= 0, x, x * 0.1)),
}


def _run(name: str, since: int, x: np.ndarray, attributes: dict[str, float]) -> np.ndarray:
    case = NodeCase("", name, since, (Input(x, oc.Tensor(x.dtype, x.shape)),), attributes)
    (result,) = evaluate_case(case)
    return np.asarray(result)


def _all_finite_float16() -> np.ndarray:
    values = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    return values[np.isfinite(values)]


def _ordered(bits: np.ndarray) -> np.ndarray:
    """float16 codes mapped to integers in the order of their values (-0 == +0)."""
    codes = bits.view(np.uint16).astype(np.int32)
    return np.where(codes & 0x8000, 0x8000 - codes, codes)


@pytest.mark.parametrize("name", list(ORACLES))
def test_float16_activation_is_rounded_once(name: str) -> None:
    since, attributes, formula = ORACLES[name]
    x = _all_finite_float16()
    with np.errstate(all="ignore"):
        expected = formula(x.astype(np.float64)).astype(np.float16)
    got = _run(name, since, x, attributes)
    finite = np.isfinite(expected)
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    ulps = np.abs(_ordered(got[finite]) - _ordered(expected[finite]))
    worst = int(np.argmax(ulps))
    assert ulps.max() <= 1, (float(x[finite][worst]), got[finite][worst], expected[finite][worst])


def test_sigmoid_float16_keeps_small_values() -> None:
    x = np.array([-8, -10, -16, -17], np.float16)
    got = _run("Sigmoid", 13, x, {})
    expected = (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float16)
    assert (got > 0).all()
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64])
def test_top_k_largest_on_integers_does_not_wrap(dtype: type) -> None:
    info = np.iinfo(dtype)
    raw = [-5, 3, int(info.min), int(info.max), 0, -1, 3]
    x = np.array([v for v in raw if info.min <= v <= info.max], dtype)
    k = np.array([3], np.int64)
    inputs = (Input(x, oc.Tensor(x.dtype, x.shape)), Input(k, oc.Tensor(np.int64, (1,))))
    values, indices = evaluate_case(NodeCase("", "TopK", 11, inputs, {}, (True, True)))
    got = {"V": values, "I": indices}
    # the oracle: Python's sort of the plain integers, larger first, ties by index
    order = sorted(range(len(x)), key=lambda i: (-int(x[i]), i))[:3]
    assert got["I"].tolist() == order
    assert got["V"].tolist() == [int(x[i]) for i in order]
