"""The float32 discrepancy of docs/converters/float_precision.md, shown and avoided."""

from __future__ import annotations

import numpy as np

from examples.converters import float_precision, thresholds, trees
from tests.converters.backends import Backends


def test_rounding_to_nearest_flips_a_training_point_and_the_fixes_do_not() -> None:
    estimator = float_precision.neighbours_tree()
    flips = float_precision.flipping_inputs(estimator)
    assert len(flips) == 1
    _feature, value = flips[0]
    X = np.full((1, 1), value, np.float32)
    expected = estimator.predict(X)
    assert value in estimator.tree_.threshold.astype(np.float32)  # the nearest float32 ...
    assert float(value) > estimator.tree_.threshold[0]  # ... lies above the threshold

    wrong = Backends(float_precision.convert_tree_regressor_rounding_to_nearest(estimator))
    for backend, outputs in wrong.run({"X": X}).items():
        assert outputs["prediction"][0] != expected[0], backend

    for convert in (
        trees.convert_tree_regressor,  # thresholds rounded down
        lambda e: trees.convert_tree_regressor_v5(e, dtype=np.float64),  # compared in double
    ):
        for backend, outputs in Backends(convert(estimator)).run({"X": X}).items():
            np.testing.assert_array_equal(outputs["prediction"], expected, err_msg=backend)


def test_float32_rounding_of_thresholds() -> None:
    rng = np.random.default_rng(10)
    exact = np.array([1.5, -2.0], np.float32).astype(np.float64)  # thresholds already float32
    t = np.concatenate([rng.normal(0, 100, 1000), exact])
    below = thresholds.float32_at_or_below(t)
    above = thresholds.float32_at_or_above(t)
    assert below.dtype == above.dtype == np.float32
    assert (below.astype(np.float64) <= t).all() and (above.astype(np.float64) >= t).all()
    # Nothing float32 lies strictly between the rounded value and t.
    assert (np.nextafter(below, np.float32(np.inf)).astype(np.float64) > t).all()
    assert (np.nextafter(above, np.float32(-np.inf)).astype(np.float64) < t).all()
