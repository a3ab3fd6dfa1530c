"""Decision trees and random forests, through TreeEnsemble{Classifier,Regressor} (ai.onnx.ml 3)
and TreeEnsemble (ai.onnx.ml 5), against scikit-learn on both backends."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from examples.converters import trees
from examples.converters.classes import label_array
from examples.converters.thresholds import float32_at_or_above, float32_at_or_below
from tests.converters.backends import Backends, assert_labels, float_rows, map_rows


def training_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    X = rng.normal(0.0, 2.0, (150, 4)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int64) + (X[:, 3] > 1.0)
    return X, y


@cache
def estimator(kind: str) -> Any:
    X, y = training_data()
    if kind == "tree_classifier":  # string labels
        return DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, np.array(list("abc"))[y])
    if kind == "forest_classifier":  # int labels, not 0..K-1
        return RandomForestClassifier(6, max_depth=4, random_state=0).fit(X, y * 10 + 5)
    if kind == "binary_forest":
        return RandomForestClassifier(4, max_depth=3, random_state=0).fit(X, y > 0)
    target = X[:, 0] * 2.0 + np.sin(X[:, 1])
    if kind == "tree_regressor":
        return DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, target)
    return RandomForestRegressor(5, max_depth=5, random_state=0).fit(X, target)


def boundaries(model: Any) -> np.ndarray:
    """The float32 values on either side of every threshold, where rounding would matter."""
    t = np.concatenate(
        [tree.threshold[tree.children_left >= 0] for tree in trees.fitted_trees(model)]
    )
    return np.concatenate([float32_at_or_below(t), float32_at_or_above(t)])


def boundary_values(*kinds: str) -> np.ndarray:
    return np.unique(np.concatenate([boundaries(estimator(kind)) for kind in kinds]))


CONVERTERS: dict[str, Callable[..., Any]] = {
    "ml3": trees.convert_tree_classifier,
    "ml5": trees.convert_tree_classifier_v5,
    "ml5_double": lambda model, **kw: trees.convert_tree_classifier_v5(
        model, dtype=np.float64, **kw
    ),
}


@cache
def classifier_backends(kind: str, converter: str, use_zipmap: bool) -> Backends:
    return Backends(CONVERTERS[converter](estimator(kind), use_zipmap=use_zipmap))


CLASSIFIER_CASES = [
    ("tree_classifier", "ml3", False),
    ("tree_classifier", "ml5", True),
    ("forest_classifier", "ml3", True),
    ("forest_classifier", "ml5", False),
    ("forest_classifier", "ml5_double", False),
    ("binary_forest", "ml3", False),
    ("binary_forest", "ml5", False),
]


@pytest.mark.parametrize(("kind", "converter", "use_zipmap"), CLASSIFIER_CASES)
@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    data=float_rows(
        4, special=boundary_values("tree_classifier", "forest_classifier", "binary_forest")
    )
)
def test_classifier(kind: str, converter: str, use_zipmap: bool, data: np.ndarray) -> None:
    model = estimator(kind)
    expected = model.predict_proba(data)
    for backend, outputs in (
        classifier_backends(kind, converter, use_zipmap).run({"X": data}).items()
    ):
        probabilities = outputs["probabilities"]
        if use_zipmap:
            probabilities = map_rows(probabilities, label_array(model.classes_))
        # float32 sums of at most 6 votes of 1/6: a few ulps.
        np.testing.assert_allclose(probabilities, expected, atol=1e-6, err_msg=backend)
        assert_labels(outputs["label"], model.predict(data), expected, model.classes_, margin=1e-6)


REGRESSOR_CONVERTERS: dict[str, Callable[..., Any]] = {
    "ml3": trees.convert_tree_regressor,
    "ml5": trees.convert_tree_regressor_v5,
    "ml5_double": lambda model: trees.convert_tree_regressor_v5(model, dtype=np.float64),
}


@cache
def regressor_backends(kind: str, converter: str) -> Backends:
    return Backends(REGRESSOR_CONVERTERS[converter](estimator(kind)))


@pytest.mark.parametrize("converter", sorted(REGRESSOR_CONVERTERS))
@pytest.mark.parametrize("kind", ["tree_regressor", "forest_regressor"])
@settings(max_examples=15, deadline=None, derandomize=True)
@given(data=float_rows(4, special=boundary_values("tree_regressor", "forest_regressor")))
def test_regressor(kind: str, converter: str, data: np.ndarray) -> None:
    model = estimator(kind)
    expected = model.predict(data)
    # The same leaves are reached (exact thresholds); float32 leaf values and sums differ from
    # float64 by a few ulps of targets below ~10. The double path is exact up to summation.
    atol = 1e-12 if converter == "ml5_double" else 4e-6
    for backend, outputs in regressor_backends(kind, converter).run({"X": data}).items():
        np.testing.assert_allclose(
            outputs["prediction"], expected, atol=atol, rtol=0, err_msg=backend
        )
