"""Decision trees and random forests of scikit-learn as ai.onnx.ml tree ensembles.

A fitted scikit-learn tree (``estimator.tree_``) is a set of parallel arrays, one entry per
node: ``children_left`` / ``children_right`` (-1 at a leaf), the ``feature`` and
``threshold`` of each split (go left when ``x[feature] <= threshold``) and ``value``, what a
leaf predicts (class proportions for a classifier, the mean target for a regressor). A forest
averages its trees.

Two encodings of the same trees:

- ``TreeEnsembleClassifier`` / ``TreeEnsembleRegressor`` (ai.onnx.ml 1-4, here version 3):
  one entry per node, leaves included; a leaf lists one weight per class it votes for.
- ``TreeEnsemble`` (ai.onnx.ml 5): interior nodes and leaves in separate lists, each branch
  saying whether it leads to a node or to a leaf, split values in a tensor of the input's type,
  and one target per leaf, so a tree voting for K classes becomes K trees.

scikit-learn compares float32 inputs with float64 thresholds; thresholds are rounded down to
float32 with ``float32_at_or_below`` so that every float32 input goes the same way
(``docs/converters/float_precision.md``), or the comparison is done in double
(``dtype=np.float64`` for ``TreeEnsemble``: the input is cast to double, the thresholds kept
exactly).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.opset.ai.onnx.ml import v3 as ml3
from onnxcraft.opset.ai.onnx.ml import v5 as ml5

from .classes import label_attributes, label_of_best, zipmap
from .thresholds import float32_at_or_below


def fitted_trees(estimator: Any) -> list[Any]:
    """The ``tree_`` of a single tree, or of every tree of a forest."""
    return [tree.tree_ for tree in getattr(estimator, "estimators_", [estimator])]


def leaf_probabilities(tree: Any) -> np.ndarray:
    """(nodes, classes): the class distribution at each node of a classification tree."""
    counts = np.asarray(tree.value[:, 0, :], np.float64)
    proportions: np.ndarray = counts / counts.sum(axis=1, keepdims=True)
    return proportions  # proportions in any scikit-learn version


# A leaf's contribution: (target or class index, weight) pairs for one node of one tree.
LeafOutputs = Callable[[int, Any, int], list[tuple[int, float]]]


@dataclass
class NodeLists:
    """Trees flattened into the parallel attribute lists of TreeEnsemble{Classifier,Regressor}."""

    tree_ids: list[int] = field(default_factory=list)
    node_ids: list[int] = field(default_factory=list)
    features: list[int] = field(default_factory=list)
    modes: list[str] = field(default_factory=list)
    thresholds: list[float] = field(default_factory=list)
    true_ids: list[int] = field(default_factory=list)
    false_ids: list[int] = field(default_factory=list)
    leaf_tree_ids: list[int] = field(default_factory=list)
    leaf_node_ids: list[int] = field(default_factory=list)
    leaf_targets: list[int] = field(default_factory=list)
    leaf_weights: list[float] = field(default_factory=list)

    def node_attributes(self) -> dict[str, Any]:
        return {
            "nodes_treeids": self.tree_ids,
            "nodes_nodeids": self.node_ids,
            "nodes_featureids": self.features,
            "nodes_modes": self.modes,
            "nodes_values": self.thresholds,
            "nodes_truenodeids": self.true_ids,
            "nodes_falsenodeids": self.false_ids,
        }


def node_lists(
    trees: list[Any],
    leaf_outputs: LeafOutputs,
    *,
    features: list[np.ndarray] | None = None,
    to_float32: Callable[[np.ndarray], np.ndarray] = float32_at_or_below,
) -> NodeLists:
    """Every node of every tree; ``features[i]`` maps tree i's feature ids to input columns,
    ``to_float32`` stores the float64 thresholds as float32."""
    lists = NodeLists()
    for tree_id, tree in enumerate(trees):
        thresholds = to_float32(tree.threshold)
        columns = features[tree_id] if features is not None else None
        for node in range(tree.node_count):
            leaf = bool(tree.children_left[node] < 0)
            feature = int(tree.feature[node]) if not leaf else 0
            lists.tree_ids.append(tree_id)
            lists.node_ids.append(node)
            lists.features.append(int(columns[feature]) if columns is not None else feature)
            lists.modes.append("LEAF" if leaf else "BRANCH_LEQ")
            lists.thresholds.append(0.0 if leaf else float(thresholds[node]))
            lists.true_ids.append(0 if leaf else int(tree.children_left[node]))
            lists.false_ids.append(0 if leaf else int(tree.children_right[node]))
            if leaf:
                for target, weight in leaf_outputs(tree_id, tree, node):
                    lists.leaf_tree_ids.append(tree_id)
                    lists.leaf_node_ids.append(node)
                    lists.leaf_targets.append(target)
                    lists.leaf_weights.append(weight)
    return lists


def convert_tree_classifier(estimator: Any, *, use_zipmap: bool = False) -> oc.proto.ModelProto:
    """A DecisionTreeClassifier or RandomForestClassifier as TreeEnsembleClassifier.

    Outputs ``label`` (N,) and ``probabilities``: (N, classes) float32, or with
    ``use_zipmap=True`` one {label: probability} map per row.
    """
    trees = fitted_trees(estimator)

    def votes(tree_id: int, tree: Any, node: int) -> list[tuple[int, float]]:
        p = leaf_probabilities(tree)[node]
        return [(k, float(p[k]) / len(trees)) for k in range(p.size)]  # the forest averages

    lists = node_lists(trees, votes)
    X = oc.arg("X", np.float32, ("N", estimator.n_features_in_))
    _, probabilities = ml3.TreeEnsembleClassifier(
        X,
        **label_attributes(estimator.classes_),
        **lists.node_attributes(),
        class_treeids=lists.leaf_tree_ids,
        class_nodeids=lists.leaf_node_ids,
        class_ids=lists.leaf_targets,
        class_weights=lists.leaf_weights,
    )
    # The node's own label output is not used: onnxruntime (1.32) labels some binary rows
    # with the class of lower probability when leaf weights include zeros (see the docs page).
    label = label_of_best(probabilities, estimator.classes_)
    if use_zipmap:
        probabilities = zipmap(probabilities, estimator.classes_)
    return oc.build(
        inputs=[X], outputs={"label": label, "probabilities": probabilities}, name="trees"
    )


def convert_tree_regressor(estimator: Any) -> oc.proto.ModelProto:
    """A DecisionTreeRegressor or RandomForestRegressor as TreeEnsembleRegressor: ``prediction``
    (N,) float32."""
    trees = fitted_trees(estimator)

    def mean(tree_id: int, tree: Any, node: int) -> list[tuple[int, float]]:
        return [(0, float(tree.value[node, 0, 0]) / len(trees))]

    lists = node_lists(trees, mean)
    X = oc.arg("X", np.float32, ("N", estimator.n_features_in_))
    Y = ml3.TreeEnsembleRegressor(
        X,
        n_targets=1,
        **lists.node_attributes(),
        target_treeids=lists.leaf_tree_ids,
        target_nodeids=lists.leaf_node_ids,
        target_ids=lists.leaf_targets,
        target_weights=lists.leaf_weights,
    )
    prediction = op.Reshape(Y, np.array([-1]))
    return oc.build(inputs=[X], outputs={"prediction": prediction}, name="trees")


# --- ai.onnx.ml 5: TreeEnsemble -------------------------------------------------------------

BRANCH_LEQ = 0  # TreeEnsemble's nodes_modes are numbers: 0 is "go true when x <= split"


@dataclass
class TreeEnsembleLists:
    """Trees in TreeEnsemble's layout: interior nodes and leaves in separate lists."""

    dtype: type[np.floating[Any]]
    roots: list[int] = field(default_factory=list)
    features: list[int] = field(default_factory=list)
    splits: list[float] = field(default_factory=list)
    true_ids: list[int] = field(default_factory=list)
    true_is_leaf: list[int] = field(default_factory=list)
    false_ids: list[int] = field(default_factory=list)
    false_is_leaf: list[int] = field(default_factory=list)
    leaf_targets: list[int] = field(default_factory=list)
    leaf_weights: list[float] = field(default_factory=list)

    def add_tree(self, tree: Any, target: int, weights: np.ndarray) -> None:
        """Tree ``tree`` voting ``weights[leaf]`` for ``target``."""
        exact = self.dtype == np.float64
        thresholds = tree.threshold if exact else float32_at_or_below(tree.threshold)

        def place(node: int) -> tuple[int, int]:  # (index in its list, 1 if a leaf)
            if tree.children_left[node] < 0:
                self.leaf_targets.append(target)
                self.leaf_weights.append(float(weights[node]))
                return len(self.leaf_weights) - 1, 1
            index = len(self.features)  # the children are placed after their parent
            self.features.append(int(tree.feature[node]))
            self.splits.append(float(thresholds[node]))
            for ids in (self.true_ids, self.true_is_leaf, self.false_ids, self.false_is_leaf):
                ids.append(0)
            self.true_ids[index], self.true_is_leaf[index] = place(tree.children_left[node])
            self.false_ids[index], self.false_is_leaf[index] = place(tree.children_right[node])
            return index, 0

        if tree.children_left[0] < 0:
            # A tree that is one leaf: TreeEnsemble's roots are nodes, so branch to it twice.
            leaf, _ = place(0)
            self.roots.append(len(self.features))
            self.features.append(0)
            self.splits.append(0.0)
            self.true_ids.append(leaf)
            self.true_is_leaf.append(1)
            self.false_ids.append(leaf)
            self.false_is_leaf.append(1)
            return
        self.roots.append(len(self.features))
        place(0)

    def evaluate(self, X: oc.Var, n_targets: int) -> oc.Var:
        return ml5.TreeEnsemble(
            op.Cast(X, to=self.dtype) if X.dtype != self.dtype else X,
            n_targets=n_targets,
            tree_roots=self.roots,
            nodes_featureids=self.features,
            nodes_splits=np.array(self.splits, self.dtype),
            nodes_modes=np.full(len(self.features), BRANCH_LEQ, np.uint8),
            nodes_truenodeids=self.true_ids,
            nodes_trueleafs=self.true_is_leaf,
            nodes_falsenodeids=self.false_ids,
            nodes_falseleafs=self.false_is_leaf,
            leaf_targetids=self.leaf_targets,
            leaf_weights=np.array(self.leaf_weights, self.dtype),
            aggregate_function=1,  # SUM
        )


def convert_tree_classifier_v5(
    estimator: Any, *, dtype: type[np.floating[Any]] = np.float32, use_zipmap: bool = False
) -> oc.proto.ModelProto:
    """A tree classifier as TreeEnsemble (ai.onnx.ml 5): one tree per (tree, class).

    ``dtype=np.float64`` compares in double (exact thresholds) and returns double
    probabilities; the input stays float32, as scikit-learn reads it.
    """
    trees = fitted_trees(estimator)
    lists = TreeEnsembleLists(dtype)
    for tree in trees:
        proportions = leaf_probabilities(tree) / len(trees)
        for k in range(proportions.shape[1]):
            lists.add_tree(tree, k, proportions[:, k])
    X = oc.arg("X", np.float32, ("N", estimator.n_features_in_))
    probabilities = lists.evaluate(X, n_targets=len(estimator.classes_))
    label = label_of_best(probabilities, estimator.classes_)
    if use_zipmap:
        probabilities = zipmap(probabilities, estimator.classes_)
    return oc.build(
        inputs=[X], outputs={"label": label, "probabilities": probabilities}, name="trees"
    )


def convert_tree_regressor_v5(
    estimator: Any, *, dtype: type[np.floating[Any]] = np.float32
) -> oc.proto.ModelProto:
    """A tree regressor as TreeEnsemble (ai.onnx.ml 5): ``prediction`` (N,) of ``dtype``."""
    trees = fitted_trees(estimator)
    lists = TreeEnsembleLists(dtype)
    for tree in trees:
        lists.add_tree(tree, 0, tree.value[:, 0, 0] / len(trees))
    X = oc.arg("X", np.float32, ("N", estimator.n_features_in_))
    prediction = op.Reshape(lists.evaluate(X, n_targets=1), np.array([-1]))
    return oc.build(inputs=[X], outputs={"prediction": prediction}, name="trees")
