"""The optimizers of ai.onnx.preview.training: Adagrad, Adam, Momentum (standard, Nesterov).

Oracles: small cases computed by hand, and a float64 re-derivation of the standard's pseudo
code written here (float32 kernels agree with it to float32 rounding). The rules' output
types are checked through the DSL and against the evaluated values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import EvaluationError, InferenceError
from onnxcraft.ops.training.kernels import adagrad, adam, momentum
from onnxcraft.opset.ai.onnx.preview.training import v1 as tr
from onnxcraft.types import Tensor
from tests.infer._agreement import evaluate_and_check

RNG = np.random.default_rng(7)
F32 = {"rtol": 2e-6, "atol": 1e-7}  # float32 kernels vs the float64 oracle


def _r(value: float, dtype: Any = np.float32) -> np.ndarray:
    return np.array(value, dtype=dtype)


def _t(value: int) -> np.ndarray:
    return np.array(value, dtype=np.int64)


# -- float64 oracles, straight from the standard's pseudo code ---------------------------------


def oracle_adagrad(
    r: float, t: int, x: Any, g: Any, h: Any, decay: float, eps: float, norm: float
) -> tuple[np.ndarray, np.ndarray]:
    x, g, h = (np.asarray(a, np.float64) for a in (x, g, h))
    rate = r / (1 + t * decay)
    g_reg = norm * x + g
    h_new = h + g_reg * g_reg
    return x - rate * g_reg / (np.sqrt(h_new) + eps), h_new


def oracle_adam(
    r: float,
    t: int,
    x: Any,
    g: Any,
    v: Any,
    h: Any,
    alpha: float,
    beta: float,
    eps: float,
    norm: float,
    post: float,
) -> tuple[np.ndarray, ...]:
    x, g, v, h = (np.asarray(a, np.float64) for a in (x, g, v, h))
    g_reg = norm * x + g
    v_new = alpha * v + (1 - alpha) * g_reg
    h_new = beta * h + (1 - beta) * g_reg * g_reg
    rate = r * math.sqrt(1 - beta**t) / (1 - alpha**t) if t > 0 else r
    x_new = x - rate * v_new / (np.sqrt(h_new) + eps)
    return (1 - post) * x_new, v_new, h_new


def oracle_momentum(
    r: float, t: int, x: Any, g: Any, v: Any, alpha: float, beta: float, norm: float, nesterov: bool
) -> tuple[np.ndarray, np.ndarray]:
    x, g, v = (np.asarray(a, np.float64) for a in (x, g, v))
    g_reg = norm * x + g
    v_new = alpha * v + (beta if t > 0 else 1.0) * g_reg
    step = g_reg + alpha * v_new if nesterov else v_new
    return x - r * step, v_new


def _tensors(*shape: int, count: int, dtype: Any = np.float32) -> list[np.ndarray]:
    return [RNG.standard_normal(shape).astype(dtype) for _ in range(count)]


# -- hand-computed cases -----------------------------------------------------------------------


def test_adagrad_by_hand() -> None:
    # r = 0.5 / (1 + 1 * 1) = 0.25; H_new = 0 + 1 = 1; X_new = 2 - 0.25 * 1 / 1.
    x_new, h_new = adagrad(
        _r(0.5), _t(1), _r([2.0]), _r([1.0]), _r([0.0]), decay_factor=1.0, epsilon=0.0
    )
    np.testing.assert_allclose(x_new, [1.75], rtol=1e-7)
    np.testing.assert_allclose(h_new, [1.0], rtol=1e-7)


def test_adam_by_hand_with_bias_correction_and_post_regularization() -> None:
    # V_new = 0.5 * 2 = 1; H_new = 0.25 * 4 = 1; R_adj = sqrt(1 - 0.75^2) / (1 - 0.5^2).
    x_new, v_new, h_new = adam(
        _r(1.0),
        _t(2),
        _r([1.0]),
        _r([2.0]),
        _r([0.0]),
        _r([0.0]),
        alpha=0.5,
        beta=0.75,
        epsilon=0.0,
        norm_coefficient_post=0.5,
    )
    adjusted = math.sqrt(1 - 0.5625) / 0.75
    np.testing.assert_allclose(x_new, [0.5 * (1.0 - adjusted)], rtol=1e-6)
    np.testing.assert_allclose(v_new, [1.0], rtol=1e-7)
    np.testing.assert_allclose(h_new, [1.0], rtol=1e-7)


@pytest.mark.parametrize(("mode", "x_expected"), [("standard", 0.7), ("nesterov", 0.65)])
def test_momentum_by_hand(mode: str, x_expected: float) -> None:
    # T > 0: V_new = 0.5 * 4 + 0.5 * 2 = 3; standard X_new = 1 - 0.1 * 3;
    # Nesterov X_new = 1 - 0.1 * (2 + 0.5 * 3).
    x_new, v_new = momentum(
        _r(0.1),
        _t(1),
        _r([1.0]),
        _r([2.0]),
        _r([4.0]),
        alpha=0.5,
        beta=0.5,
        mode=mode,
        norm_coefficient=0.0,
    )
    np.testing.assert_allclose(x_new, [x_expected], rtol=1e-6)
    np.testing.assert_allclose(v_new, [3.0], rtol=1e-7)


def test_momentum_first_step_takes_the_whole_gradient() -> None:
    # T = 0: beta is replaced by 1, so V_new = 0.5 * 4 + 2 = 4.
    _, v_new = momentum(
        _r(0.1),
        _t(0),
        _r([1.0]),
        _r([2.0]),
        _r([4.0]),
        alpha=0.5,
        beta=0.25,
        mode="standard",
        norm_coefficient=0.0,
    )
    np.testing.assert_allclose(v_new, [4.0], rtol=1e-7)


# -- against the float64 oracle ----------------------------------------------------------------


@pytest.mark.parametrize("t", [0, 1, 5])
def test_adagrad_matches_the_formula(t: int) -> None:
    x, g = _tensors(3, 4, count=2)
    h = np.abs(_tensors(3, 4, count=1)[0])
    attrs = {"decay_factor": 0.3, "epsilon": 1e-4, "norm_coefficient": 0.02}
    got = adagrad(_r(0.1), _t(t), x, g, h, **attrs)
    want = oracle_adagrad(0.1, t, x, g, h, 0.3, 1e-4, 0.02)
    for a, b in zip(got, want):
        assert a.dtype == np.float32 and a.shape == (3, 4)
        np.testing.assert_allclose(a, b, **F32)


@pytest.mark.parametrize("t", [0, 1, 7])
def test_adam_matches_the_formula(t: int) -> None:
    x, g, v = _tensors(5, count=3)
    h = np.abs(_tensors(5, count=1)[0])
    attrs = {
        "alpha": 0.8,
        "beta": 0.95,
        "epsilon": 1e-3,
        "norm_coefficient": 0.01,
        "norm_coefficient_post": 0.1,
    }
    got = adam(_r(0.05), _t(t), x, g, v, h, **attrs)
    want = oracle_adam(0.05, t, x, g, v, h, 0.8, 0.95, 1e-3, 0.01, 0.1)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, **F32)


@pytest.mark.parametrize("t", [0, 3])
@pytest.mark.parametrize("mode", ["standard", "nesterov"])
def test_momentum_matches_the_formula(t: int, mode: str) -> None:
    x, g, v = _tensors(2, 3, count=3)
    got = momentum(_r(0.2), _t(t), x, g, v, alpha=0.9, beta=0.4, mode=mode, norm_coefficient=0.05)
    want = oracle_momentum(0.2, t, x, g, v, 0.9, 0.4, 0.05, mode == "nesterov")
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, **F32)


def test_double_tensors_stay_double_and_match_closely() -> None:
    x, g, v, h = _tensors(4, count=4, dtype=np.float64)
    h = np.abs(h)
    got = adam(_r(0.1, np.float64), _t(2), x, g, v, h, alpha=0.9, beta=0.99)
    want = oracle_adam(0.1, 2, x, g, v, h, 0.9, 0.99, 1e-6, 0.0, 0.0)
    for a, b in zip(got, want):
        assert a.dtype == np.float64
        # The attributes arrive as float32 values in a model; here they are exact doubles.
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_several_tensors_are_updated_independently() -> None:
    x1, g1, v1, h1 = _tensors(2, count=4)
    x2, g2, v2, h2 = _tensors(3, 2, count=4)
    h1, h2 = np.abs(h1), np.abs(h2)
    attrs = {"alpha": 0.7, "beta": 0.9, "norm_coefficient": 0.1}
    joint = adam(_r(0.1), _t(4), x1, x2, g1, g2, v1, v2, h1, h2, **attrs)
    first = adam(_r(0.1), _t(4), x1, g1, v1, h1, **attrs)
    second = adam(_r(0.1), _t(4), x2, g2, v2, h2, **attrs)
    # Outputs are grouped: X1_new, X2_new, V1_new, V2_new, H1_new, H2_new.
    for got, want in zip(joint, [first[0], second[0], first[1], second[1], first[2], second[2]]):
        np.testing.assert_array_equal(got, want)


# -- through a model, with the rules -----------------------------------------------------------


def test_models_evaluate_and_rules_mirror_the_updated_inputs() -> None:
    R, T = oc.arg("R", np.float32, ()), oc.arg("T", np.int64, ())
    X = oc.arg("X", np.float32, ("N", 2))
    G = oc.arg("G", np.float32, ("N", 2))
    S = oc.arg("S", np.float32, ("N", 2))
    Y = oc.arg("Y", np.float64, (3,))
    GY = oc.arg("GY", np.float64, (3,))
    SY = oc.arg("SY", np.float64, (3,))
    ada = tr.Adagrad(R, T, X, Y, G, GY, S, SY, outputs_count=4)
    mom = tr.Momentum(
        R, T, X, G, S, alpha=0.9, beta=0.1, mode="nesterov", norm_coefficient=0.0, outputs_count=2
    )
    ad = tr.Adam(R, T, Y, GY, SY, SY, outputs_count=3)
    assert [o.type for o in ada] == [X.type, Y.type, S.type, SY.type]
    assert ada[1].type == Tensor(ElementType.DOUBLE, (3,))
    outputs = {
        "ada_x": ada[0],
        "ada_y": ada[1],
        "ada_hx": ada[2],
        "ada_hy": ada[3],
        "mom_x": mom[0],
        "mom_v": mom[1],
        "adam_x": ad[0],
        "adam_v": ad[1],
        "adam_h": ad[2],
    }
    x, g, s = _tensors(4, 2, count=3)
    y, gy, sy = _tensors(3, count=3, dtype=np.float64)
    s, sy = np.abs(s), np.abs(sy)
    feeds = {"R": _r(0.1), "T": _t(2), "X": x, "G": g, "S": s, "Y": y, "GY": gy, "SY": sy}
    results = evaluate_and_check([R, T, X, G, S, Y, GY, SY], outputs, feeds)
    want_x, want_h = oracle_adagrad(0.1, 2, x, g, s, 0.0, 1e-6, 0.0)
    np.testing.assert_allclose(results["ada_x"], want_x, **F32)
    np.testing.assert_allclose(results["ada_hx"], want_h, **F32)
    want = oracle_momentum(0.1, 2, x, g, s, 0.9, 0.1, 0.0, True)
    np.testing.assert_allclose(results["mom_x"], want[0], **F32)


def test_rules_reject_inconsistent_groups() -> None:
    R, T = oc.arg("R", np.float32, ()), oc.arg("T", np.int64, ())
    X = oc.arg("X", np.float32, (2,))
    G = oc.arg("G", np.float32, (3,))
    with pytest.raises(
        InferenceError, match="Adagrad: input G1 must have the type and shape of X1"
    ):
        tr.Adagrad(R, T, X, G, X, outputs_count=2)
    with pytest.raises(InferenceError, match="Adam: after R and T the inputs must be 4 groups"):
        tr.Adam(R, T, X, X, X, outputs_count=3)
    with pytest.raises(InferenceError, match=r"Momentum: 1 optimized tensor\(s\) need 2 outputs"):
        tr.Momentum(
            R,
            T,
            X,
            X,
            X,
            alpha=0.9,
            beta=0.1,
            mode="standard",
            norm_coefficient=0.0,
            outputs_count=3,
        )


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: adagrad(_r([0.1, 0.2]), _t(0), _r([1.0]), _r([1.0]), _r([1.0])),
            r"Adagrad: input R must be a scalar, got shape \[2\]",
        ),
        (
            lambda: adagrad(_r(0.1), _r(0.0), _r([1.0]), _r([1.0]), _r([1.0])),
            "Adagrad: input T must be an integer tensor, got float32",
        ),
        (
            lambda: adagrad(_r(0.1), _t(0), _r([1.0]), _r([1.0])),
            "Adagrad: after R and T the inputs must be 3 groups of equal size",
        ),
        (
            lambda: adam(_r(0.1), _t(0), _r([1.0]), _r([1.0, 2.0]), _r([1.0]), _r([1.0])),
            "Adam: input G1 must have the type and shape of X1",
        ),
        (
            lambda: adam(_r(0.1), _t(1), _r([1.0]), _r([1.0]), _r([1.0]), _r([1.0]), alpha=1.0),
            "Adam: alpha=1.0 makes the bias correction 1 - alpha\\*\\*T zero",
        ),
        (
            lambda: momentum(
                _r(0.1),
                _t(0),
                _r([1.0]),
                _r([1.0]),
                _r([1.0]),
                alpha=0.9,
                beta=0.1,
                mode="heavy",
                norm_coefficient=0.0,
            ),
            "Momentum: mode must be 'standard' or 'nesterov', got 'heavy'",
        ),
        (
            lambda: momentum(
                _r(0.1),
                _t(0),
                _r([1.0]),
                _r([1.0]),
                _r([1.0]),
                alpha=0.9,
                mode="standard",
                norm_coefficient=0.0,
            ),
            "Momentum: the beta attribute is required",
        ),
        (
            lambda: momentum(
                _r(0.1),
                _t(0),
                np.array([1], np.int32),
                np.array([1], np.int32),
                np.array([1], np.int32),
                alpha=0.9,
                beta=0.1,
                mode="standard",
                norm_coefficient=0.0,
            ),
            "Momentum: input X1 must be a float or double tensor, got int32",
        ),
    ],
)
def test_bad_input_is_reported_clearly(call: Any, message: str) -> None:
    with pytest.raises(EvaluationError, match=message):
        call()
