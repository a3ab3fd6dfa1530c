"""StandardScaler + LogisticRegression against predict / predict_proba, on both backends."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from examples.converters.linear import convert_scaled_logistic
from tests.converters.backends import Backends, assert_labels, float_rows, map_rows

# float32 models: probabilities within 1e-5 (float32 rounding of logits up to ~30); float64
# models: scikit-learn's numbers up to the order of summation.
TOLERANCE = {np.float32: 1e-5, np.float64: 1e-12}


@cache
def pipeline(n_classes: int) -> Pipeline:
    rng = np.random.default_rng(n_classes)
    X = rng.normal(2.0, 3.0, (120, 3))
    y = (X @ rng.standard_normal((3, n_classes))).argmax(axis=1)
    labels = np.array([0, 1]) if n_classes == 2 else np.array(["cat", "dog", "eel"])
    return make_pipeline(StandardScaler(), LogisticRegression()).fit(X, labels[y])


@cache
def backends(n_classes: int, dtype: Any, use_zipmap: bool) -> Backends:
    return Backends(
        convert_scaled_logistic(pipeline(n_classes), dtype=dtype, use_zipmap=use_zipmap)
    )


def class_scores(estimator: Pipeline, X: np.ndarray) -> np.ndarray:
    """One score per class; with two classes, 0 for the first and the logit for the second."""
    scores = estimator.decision_function(X)
    return np.column_stack([np.zeros_like(scores), scores]) if scores.ndim == 1 else scores


CASES = [
    (n, dtype, zipmap)
    for n in (2, 3)
    for dtype in (np.float32, np.float64)
    for zipmap in (False, True)
]


@pytest.mark.parametrize(("n_classes", "dtype", "use_zipmap"), CASES)
@settings(max_examples=15, deadline=None, derandomize=True)
@given(data=float_rows(3, bound=10.0, max_rows=6))
def test_labels_and_probabilities_match_scikit_learn(
    n_classes: int, dtype: Any, use_zipmap: bool, data: np.ndarray
) -> None:
    estimator = pipeline(n_classes)
    X = data.astype(dtype)
    expected = estimator.predict_proba(X)
    for backend, outputs in backends(n_classes, dtype, use_zipmap).run({"X": X}).items():
        probabilities = outputs["probabilities"]
        if use_zipmap:
            probabilities = map_rows(probabilities, estimator.classes_)
        np.testing.assert_allclose(probabilities, expected, atol=TOLERANCE[dtype], err_msg=backend)
        assert_labels(
            outputs["label"],
            estimator.predict(X),
            class_scores(estimator, X),
            estimator.classes_,
            margin=1e-4 if dtype == np.float32 else 1e-9,
        )
