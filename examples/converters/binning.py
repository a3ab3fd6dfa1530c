"""KBinsDiscretizer and weight-of-evidence binning: a binary search written as trees.

``KBinsDiscretizer(encode="ordinal").transform`` replaces each value by the index of its bin:
the number of inner edges at or below it (``np.searchsorted(edges[1:-1], x, side="right")``).
A chain of comparisons (``Less`` against every edge, summed) costs one comparison per edge; a
tree ensemble finds the same index with a binary search, ``log2(bins)`` comparisons per value.
Each feature gets one balanced tree: a node holds the edge between bin ``mid - 1`` and bin
``mid`` and sends ``x < edge`` to the lower half. All trees sit in one
``TreeEnsembleRegressor`` with one target per feature.

A leaf can output anything known per bin, not only its index: a weight-of-evidence binning
(credit scoring's ``ln(share of goods / share of bads)`` per bin) is the same trees with the
bins' WoE values at the leaves.

Edges are float64 and the inputs float32; ``x < edge`` holds for a float32 x exactly when
``x < float32_at_or_above(edge)``, so the stored edge is rounded up.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx.ml import v3 as ml

from .thresholds import float32_at_or_above

ATTRIBUTES = [
    "nodes_treeids",
    "nodes_nodeids",
    "nodes_featureids",
    "nodes_modes",
    "nodes_values",
    "nodes_truenodeids",
    "nodes_falsenodeids",
    "target_treeids",
    "target_nodeids",
    "target_ids",
    "target_weights",
]


def add_search_tree(
    lists: dict[str, list[Any]], feature: int, edges: np.ndarray, leaves: np.ndarray
) -> None:
    """Append to ``lists`` (TreeEnsembleRegressor's attributes) tree number ``feature``: a
    balanced search over the inner ``edges`` whose leaf for bin b outputs ``leaves[b]``."""
    stored_edges = float32_at_or_above(edges)
    count = 0

    def append(node_id: int, mode: str, edge: float, true_id: int, false_id: int) -> None:
        # tree id, node id, feature, mode, value: a tree per feature, numbered as the feature
        for name, value in zip(ATTRIBUTES[:5], (feature, node_id, feature, mode, edge)):
            lists[name].append(value)
        lists["nodes_truenodeids"].append(true_id)
        lists["nodes_falsenodeids"].append(false_id)

    def subtree(low: int, high: int) -> int:  # bins low..high; returns the subtree's node id
        nonlocal count
        node_id, count = count, count + 1
        if low == high:
            append(node_id, "LEAF", 0.0, 0, 0)
            for name, value in zip(ATTRIBUTES[7:], (feature, node_id, feature, float(leaves[low]))):
                lists[name].append(value)
            return node_id
        mid = (low + high + 1) // 2  # x < edges[mid - 1]: a bin below mid
        # Runtimes take the first node listed for a tree as its root: list a node before its
        # children, then fill in the children's ids.
        position = len(lists["nodes_modes"])
        append(node_id, "BRANCH_LT", float(stored_edges[mid - 1]), -1, -1)
        lists["nodes_truenodeids"][position] = subtree(low, mid - 1)
        lists["nodes_falsenodeids"][position] = subtree(mid, high)
        return node_id

    subtree(0, len(edges))


def convert_binning(
    kbins: Any, *, bin_values: list[np.ndarray] | None = None
) -> oc.proto.ModelProto:
    """A fitted ``KBinsDiscretizer(encode="ordinal")`` as output ``bins`` (N, features) float32:
    the bin index of each value, or ``bin_values[feature][bin]`` when given (WoE, say)."""
    lists: dict[str, list[Any]] = {name: [] for name in ATTRIBUTES}
    n_features = len(kbins.bin_edges_)
    for feature, edges in enumerate(kbins.bin_edges_):
        inner = np.asarray(edges[1:-1], np.float64)
        leaves = np.arange(inner.size + 1) if bin_values is None else bin_values[feature]
        add_search_tree(lists, feature, inner, np.asarray(leaves, np.float64))
    X = oc.arg("X", np.float32, ("N", n_features))
    bins = ml.TreeEnsembleRegressor(
        X,
        n_targets=n_features,
        nodes_treeids=lists["nodes_treeids"],
        nodes_nodeids=lists["nodes_nodeids"],
        nodes_featureids=lists["nodes_featureids"],
        nodes_modes=lists["nodes_modes"],
        nodes_values=lists["nodes_values"],
        nodes_truenodeids=lists["nodes_truenodeids"],
        nodes_falsenodeids=lists["nodes_falsenodeids"],
        target_treeids=lists["target_treeids"],
        target_nodeids=lists["target_nodeids"],
        target_ids=lists["target_ids"],
        target_weights=lists["target_weights"],
    )
    return oc.build(inputs=[X], outputs={"bins": bins}, name="binning")


def weight_of_evidence(kbins: Any, X: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    """Per feature, ``ln(share of positives / share of negatives)`` of each bin, smoothed by
    half a count so that empty bins stay finite."""
    bins = kbins.transform(X).astype(np.int64)
    tables = []
    for feature, edges in enumerate(kbins.bin_edges_):
        n_bins = len(edges) - 1
        positives = np.bincount(bins[y == 1, feature], minlength=n_bins) + 0.5
        negatives = np.bincount(bins[y != 1, feature], minlength=n_bins) + 0.5
        tables.append(np.log((positives / positives.sum()) / (negatives / negatives.sum())))
    return tables
