"""Run a converted model with onnxcraft's evaluator and with onnxruntime, and compare it with
scikit-learn: the helpers every gallery test shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnxruntime as ort
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import onnxcraft as oc

BACKENDS = ("onnxcraft", "onnxruntime")


class Backends:
    """A converted model, checked, then prepared for both backends once."""

    def __init__(self, model: Any) -> None:
        oc.check(model, full_check=True)
        self.evaluator = oc.Evaluator(model)
        # The oracle reads the serialized bytes, as a deployment would.
        self.session = ort.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        self.names = [output.name for output in self.session.get_outputs()]

    def run(self, feeds: dict[str, np.ndarray]) -> dict[str, dict[str, Any]]:
        """{backend: {output: value}}."""
        return {
            "onnxcraft": self.evaluator.run(feeds),
            "onnxruntime": dict(zip(self.names, self.session.run(None, feeds))),
        }


def float_rows(
    n_features: int,
    *,
    special: Sequence[float] = (),
    bound: float = 4.0,
    max_rows: int = 8,
    dtype: type[np.floating[Any]] = np.float32,
) -> st.SearchStrategy[np.ndarray]:
    """(rows, n_features) arrays within ±bound, mixing in ``special`` values (thresholds'
    float32 neighbours, bin edges) so that boundaries are hit, not only approached."""
    width = 32 if dtype == np.float32 else 64
    elements: st.SearchStrategy[float] = st.floats(-bound, bound, width=width)
    if len(special):
        elements = st.one_of(elements, st.sampled_from([float(v) for v in special]))
    return st.integers(1, max_rows).flatmap(
        lambda rows: hnp.arrays(dtype, (rows, n_features), elements=elements)
    )


def assert_labels(
    got: np.ndarray,
    expected: np.ndarray,
    scores: np.ndarray,
    classes: np.ndarray,
    *,
    margin: float,
    larger_is_better: bool = True,
) -> None:
    """Labels equal scikit-learn's wherever its best score leads the runner-up by more than
    ``margin``; within ``margin`` (a near tie that rounding may decide either way) the label
    must be one of the near-tied classes."""
    got = np.asarray(got)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    oriented = scores if larger_is_better else -scores
    best = oriented.max(axis=1, keepdims=True)
    near = oriented >= best - margin
    clear = near.sum(axis=1) == 1
    np.testing.assert_array_equal(got[clear], expected[clear])
    for row in np.flatnonzero(~clear):
        assert got[row] in set(classes[near[row]].tolist()), (row, got[row], scores[row])


def map_rows(maps: list[dict[Any, float]], classes: np.ndarray) -> np.ndarray:
    """ZipMap's sequence of maps as an (N, classes) array in the order of ``classes``."""
    assert all(set(m) == set(classes.tolist()) for m in maps)
    return np.array([[m[c] for c in classes.tolist()] for m in maps], np.float64)
