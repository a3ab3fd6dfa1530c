"""KBinsDiscretizer and a weight-of-evidence binning as tree-ensemble binary searches."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from sklearn.preprocessing import KBinsDiscretizer

from examples.converters.binning import convert_binning, weight_of_evidence
from examples.converters.thresholds import float32_at_or_above, float32_at_or_below
from tests.converters.backends import Backends, float_rows

STRATEGIES = ["uniform", "quantile", "kmeans"]


def training_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(8)
    X = rng.normal(0.0, 1.5, (300, 3)).astype(np.float32)
    return X, (X[:, 0] - X[:, 2] > 0.5).astype(np.int64)


@cache
def kbins(strategy: str) -> KBinsDiscretizer:
    X, _ = training_data()
    return KBinsDiscretizer(
        n_bins=[6, 2, 11],
        encode="ordinal",
        strategy=strategy,
        quantile_method="averaged_inverted_cdf",
    ).fit(X)


def edge_neighbours(strategy: str) -> np.ndarray:
    edges = np.concatenate(kbins(strategy).bin_edges_)
    return np.concatenate([float32_at_or_below(edges), float32_at_or_above(edges)])


SPECIAL = np.unique(np.concatenate([edge_neighbours(s) for s in STRATEGIES]))


@cache
def backends(strategy: str, woe: bool) -> Backends:
    X, y = training_data()
    values = weight_of_evidence(kbins(strategy), X, y) if woe else None
    return Backends(convert_binning(kbins(strategy), bin_values=values))


@pytest.mark.parametrize("strategy", STRATEGIES)
@settings(max_examples=20, deadline=None, derandomize=True)
@given(data=float_rows(3, special=SPECIAL, bound=6.0))
def test_bin_indices_equal_transform(strategy: str, data: np.ndarray) -> None:
    expected = kbins(strategy).transform(data)
    for backend, outputs in backends(strategy, woe=False).run({"X": data}).items():
        np.testing.assert_array_equal(outputs["bins"], expected, err_msg=backend)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(data=float_rows(3, special=SPECIAL, bound=6.0))
def test_weight_of_evidence(data: np.ndarray) -> None:
    X, y = training_data()
    tables = weight_of_evidence(kbins("quantile"), X, y)
    bins = kbins("quantile").transform(data).astype(np.int64)
    expected = np.stack([tables[j][bins[:, j]] for j in range(3)], axis=1)
    for backend, outputs in backends("quantile", woe=True).run({"X": data}).items():
        # float32 leaf weights of WoE values below ~5 in size.
        np.testing.assert_allclose(outputs["bins"], expected, atol=1e-6, rtol=0, err_msg=backend)


def test_the_search_is_logarithmic() -> None:
    # The third feature has 11 bins: a balanced search is 4 comparisons deep, where a chain of
    # comparisons would be 10.
    model = convert_binning(kbins("uniform"))
    (node,) = model.graph.node
    attributes = {a.name: a for a in node.attribute}
    rows = [
        (node_id, mode.decode(), true_id, false_id)
        for tree, node_id, mode, true_id, false_id in zip(
            attributes["nodes_treeids"].ints,
            attributes["nodes_nodeids"].ints,
            attributes["nodes_modes"].strings,
            attributes["nodes_truenodeids"].ints,
            attributes["nodes_falsenodeids"].ints,
        )
        if tree == 2
    ]
    branches = {node_id: (t, f) for node_id, mode, t, f in rows if mode != "LEAF"}

    def depth(node_id: int) -> int:
        if node_id not in branches:
            return 0
        return 1 + max(depth(child) for child in branches[node_id])

    assert len(branches) == 10
    assert depth(rows[0][0]) == 4
