"""IsolationForest: score_samples and decision_function, on both backends."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from sklearn.ensemble import IsolationForest

from examples.converters.isolation_forest import average_path_length, convert_isolation_forest
from examples.converters.thresholds import float32_at_or_above, float32_at_or_below
from tests.converters.backends import Backends, float_rows

SETTINGS: dict[str, dict[str, Any]] = {
    "all_features": {"n_estimators": 15},
    "feature_subsets": {"n_estimators": 10, "max_features": 0.5, "max_samples": 64},
}


@cache
def forest(name: str) -> IsolationForest:
    rng = np.random.default_rng(6)
    X = rng.standard_normal((200, 4)).astype(np.float32)
    return IsolationForest(random_state=0, **SETTINGS[name]).fit(X)


@cache
def backends(name: str) -> Backends:
    return Backends(convert_isolation_forest(forest(name)))


def boundaries(name: str) -> np.ndarray:
    t = np.concatenate(
        [e.tree_.threshold[e.tree_.children_left >= 0] for e in forest(name).estimators_]
    )
    return np.concatenate([float32_at_or_below(t), float32_at_or_above(t)])


@pytest.mark.parametrize("name", sorted(SETTINGS))
@settings(max_examples=20, deadline=None, derandomize=True)
@given(data=float_rows(4, special=np.concatenate([boundaries(n) for n in SETTINGS]), bound=5.0))
def test_scores_match_scikit_learn(name: str, data: np.ndarray) -> None:
    estimator = forest(name)
    for backend, outputs in backends(name).run({"X": data}).items():
        # The same leaves, path lengths computed in float64: equal up to summation order.
        np.testing.assert_allclose(
            outputs["score_samples"], estimator.score_samples(data), atol=1e-12, err_msg=backend
        )
        np.testing.assert_allclose(
            outputs["decision_function"],
            estimator.decision_function(data),
            atol=1e-12,
            err_msg=backend,
        )


def test_average_path_length_follows_the_paper() -> None:
    # c(n) = 2 H(n-1) - 2 (n-1)/n with H(i) ~ ln(i) + Euler's constant; c(1) = 0, c(2) = 1.
    n = np.array([1, 2, 3, 10, 256])
    harmonic = np.log(n - 1.0, where=n > 1, out=np.zeros(5)) + np.euler_gamma
    expected = np.where(n <= 1, 0.0, np.where(n == 2, 1.0, 2 * harmonic - 2 * (n - 1) / n))
    np.testing.assert_allclose(average_path_length(n), expected)
