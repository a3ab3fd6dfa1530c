"""IsolationForest: ``score_samples`` and ``decision_function`` from leaf indices.

An isolation forest scores a row by how quickly its trees isolate it: in each tree, the depth
of the leaf it reaches plus ``c(n)``, the average depth an unsuccessful search would still
need among the ``n`` training samples left in that leaf. The score is

    score_samples(x) = -2 ** (-mean path length / c(max_samples_))
    decision_function(x) = score_samples(x) - offset_

The trick: one ``TreeEnsembleRegressor`` with a target per tree, whose leaves output their own
node id, gives for every row the leaf it reaches in every tree (N, trees). A table of path
lengths, one entry per node of every tree, turns those leaf ids into path lengths with a single
Gather. The path lengths are computed in float64 at conversion time, so the scores are
scikit-learn's to the last bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.opset.ai.onnx.ml import v3 as ml

from .trees import node_lists

EULER_GAMMA = 0.5772156649015329


def average_path_length(n: np.ndarray) -> np.ndarray:
    """c(n): the mean depth of an unsuccessful search in a binary search tree of n keys."""
    n = np.asarray(n, np.float64)
    safe = np.maximum(n, 3.0)  # keeps the log defined where the formula is not used
    general = 2.0 * (np.log(safe - 1.0) + EULER_GAMMA) - 2.0 * (safe - 1.0) / safe
    return np.where(n <= 1, 0.0, np.where(n == 2, 1.0, general))


def node_depths(tree: Any) -> np.ndarray:
    """The depth of every node (the root is at depth 0); children come after their parent."""
    depths = np.zeros(tree.node_count)
    for node in range(tree.node_count):
        for child in (tree.children_left[node], tree.children_right[node]):
            if child >= 0:
                depths[child] = depths[node] + 1
    return depths


def convert_isolation_forest(forest: Any) -> oc.proto.ModelProto:
    """Outputs ``score_samples`` (N,) and ``decision_function`` (N,), float64; input float32."""
    trees = [estimator.tree_ for estimator in forest.estimators_]
    # Each leaf outputs its node id, to the target of its tree.
    lists = node_lists(
        trees,
        lambda tree_id, tree, node: [(tree_id, float(node))],
        features=[np.asarray(f) for f in forest.estimators_features_],
    )
    X = oc.arg("X", np.float32, ("N", forest.n_features_in_))
    leaves = ml.TreeEnsembleRegressor(
        X,
        n_targets=len(trees),
        **lists.node_attributes(),
        target_treeids=lists.leaf_tree_ids,
        target_nodeids=lists.leaf_node_ids,
        target_ids=lists.leaf_targets,
        target_weights=lists.leaf_weights,
    ).named("leaf_of_each_tree")  # (N, trees), exact: node ids are far below 2**24

    # One table for all trees: tree t's nodes start at offsets[t].
    path_lengths = np.concatenate(
        [node_depths(t) + average_path_length(t.n_node_samples) for t in trees]
    )
    offsets = np.cumsum([0] + [t.node_count for t in trees[:-1]]).astype(np.int64)
    rows = op.Add(op.Cast(leaves, to=np.int64), offsets)
    mean_path = op.ReduceMean(op.Gather(path_lengths, rows), np.array([1]), keepdims=0)

    normaliser = float(average_path_length(np.array([forest.max_samples_]))[0])
    # np.float64(2.0), not 2.0: Pow's base and exponent have separate types, and a Python
    # float that no other input types is float32, which would make the score float32.
    score = op.Neg(op.Pow(np.float64(2.0), op.Neg(mean_path) / normaliser))
    return oc.build(
        inputs=[X],
        outputs={
            "score_samples": score,
            "decision_function": score - np.float64(forest.offset_),
        },
        name="isolation_forest",
    )
