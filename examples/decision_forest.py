"""A random-forest classifier converter: fitted trees as arrays -> TreeEnsembleClassifier + ZipMap.

Tree libraries describe a fitted tree with parallel arrays, one entry per node (scikit-learn's
``tree_`` attributes look like this): ``left``/``right`` child ids (-1 at a leaf), the
``feature`` and ``threshold`` of each split (go left when ``x[feature] <= threshold``) and, at
each leaf, the class probabilities. The converter flattens every tree into the node lists of
ai.onnx.ml's TreeEnsembleClassifier, averages the trees' votes (weights divided by the number of
trees), and adds ZipMap so the probabilities come out as one {label: probability} per row, the
way converters of scikit-learn classifiers usually present them.

No tree library is needed: a small forest is grown here with numpy on random splits, then the
model is checked against a plain-numpy walk of the same trees.

Run it: ``python examples/decision_forest.py [output.onnx]``.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx.ml import v3 as ml


@dataclass
class Tree:
    """A fitted binary tree, one entry per node; leaves have left == right == -1."""

    left: np.ndarray  # int64
    right: np.ndarray  # int64
    feature: np.ndarray  # int64
    threshold: np.ndarray  # float64
    probabilities: np.ndarray  # (nodes, classes): the class distribution at each leaf


def grow_tree(rng: np.random.Generator, X: np.ndarray, y: np.ndarray, classes: int) -> Tree:
    """A tree of random axis-aligned splits, grown to depth 4 (a stand-in for a fitted one)."""
    left: list[int] = []
    right: list[int] = []
    feature: list[int] = []
    threshold: list[float] = []
    probabilities: list[np.ndarray] = []

    def grow(rows: np.ndarray, depth: int) -> int:
        node = len(left)
        left.append(-1)
        right.append(-1)
        feature.append(0)
        threshold.append(0.0)
        counts = np.bincount(y[rows], minlength=classes).astype(np.float64)
        probabilities.append(counts / max(counts.sum(), 1.0))
        if depth == 4 or rows.size < 4:
            return node
        f = int(rng.integers(X.shape[1]))
        t = float(np.median(X[rows, f]))
        goes_left = X[rows, f] <= t
        if goes_left.all() or not goes_left.any():
            return node
        feature[node], threshold[node] = f, t
        left[node] = grow(rows[goes_left], depth + 1)
        right[node] = grow(rows[~goes_left], depth + 1)
        return node

    grow(np.arange(X.shape[0]), 0)
    return Tree(
        np.array(left),
        np.array(right),
        np.array(feature),
        np.array(threshold),
        np.array(probabilities),
    )


@dataclass
class NodeLists:
    """The forest flattened into TreeEnsembleClassifier's parallel attribute lists."""

    tree_ids: list[int] = field(default_factory=list)
    node_ids: list[int] = field(default_factory=list)
    features: list[int] = field(default_factory=list)
    modes: list[str] = field(default_factory=list)
    thresholds: list[float] = field(default_factory=list)
    true_ids: list[int] = field(default_factory=list)
    false_ids: list[int] = field(default_factory=list)
    leaf_tree_ids: list[int] = field(default_factory=list)
    leaf_node_ids: list[int] = field(default_factory=list)
    leaf_class_ids: list[int] = field(default_factory=list)
    leaf_weights: list[float] = field(default_factory=list)

    def add_tree(self, tree_id: int, tree: Tree, vote: float) -> None:
        for node in range(tree.left.size):
            leaf = bool(tree.left[node] < 0)
            self.tree_ids.append(tree_id)
            self.node_ids.append(node)
            self.features.append(int(tree.feature[node]))
            self.modes.append("LEAF" if leaf else "BRANCH_LEQ")
            self.thresholds.append(float(tree.threshold[node]))
            self.true_ids.append(0 if leaf else int(tree.left[node]))
            self.false_ids.append(0 if leaf else int(tree.right[node]))
            if leaf:
                for class_id, p in enumerate(tree.probabilities[node]):
                    self.leaf_tree_ids.append(tree_id)
                    self.leaf_node_ids.append(node)
                    self.leaf_class_ids.append(class_id)
                    self.leaf_weights.append(float(p) * vote)


def convert_forest(trees: list[Tree], labels: list[int], n_features: int) -> oc.proto.ModelProto:
    """The forest as a model: ``label`` (N,) int64 and ``probabilities`` [{label: p}, ...]."""
    lists = NodeLists()
    for tree_id, tree in enumerate(trees):
        lists.add_tree(tree_id, tree, vote=1.0 / len(trees))  # the forest averages its trees
    X = oc.arg("X", np.float32, ("N", n_features))
    label, scores = ml.TreeEnsembleClassifier(
        X,
        classlabels_int64s=labels,
        post_transform="NONE",
        nodes_treeids=lists.tree_ids,
        nodes_nodeids=lists.node_ids,
        nodes_featureids=lists.features,
        nodes_modes=lists.modes,
        nodes_values=lists.thresholds,
        nodes_truenodeids=lists.true_ids,
        nodes_falsenodeids=lists.false_ids,
        class_treeids=lists.leaf_tree_ids,
        class_nodeids=lists.leaf_node_ids,
        class_ids=lists.leaf_class_ids,
        class_weights=lists.leaf_weights,
    )
    probabilities = ml.ZipMap(scores, classlabels_int64s=labels)
    model: oc.proto.ModelProto = oc.build(
        inputs=[X],
        outputs={"label": label, "probabilities": probabilities},
        name="random_forest",
        doc_string=f"A {len(trees)}-tree random forest over {n_features} features.",
    )
    return model


def reference(trees: list[Tree], X: np.ndarray) -> np.ndarray:
    """Mean class probabilities of the forest, walking each tree row by row."""
    total = np.zeros((X.shape[0], trees[0].probabilities.shape[1]))
    for tree in trees:
        for row, x in enumerate(X.astype(np.float64)):
            node = 0
            while tree.left[node] >= 0:
                go_left = x[tree.feature[node]] <= tree.threshold[node]
                node = int(tree.left[node] if go_left else tree.right[node])
            total[row] += tree.probabilities[node]
    return total / len(trees)


def main(path: str | None = None) -> dict[str, object]:
    rng = np.random.default_rng(7)
    X = rng.standard_normal((200, 5)).astype(np.float32)
    y = ((X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int64) + (X[:, 3] > 1)).astype(np.int64)
    trees = [grow_tree(rng, X, y, classes=3) for _ in range(8)]
    labels = [10, 20, 30]  # class labels need not be 0..K-1
    model = convert_forest(trees, labels, n_features=5)
    oc.check(model)

    outputs = oc.evaluate(model, {"X": X[:25]})
    expected = reference(trees, X[:25])
    got = np.array([[row[label] for label in labels] for row in outputs["probabilities"]])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(outputs["label"], np.array(labels)[expected.argmax(axis=1)])

    # A scratch folder, removed afterwards, unless a path is given.
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(path) if path else Path(scratch) / "decision_forest.onnx"
        oc.save(model, target)
        print(f"saved {target}; labels and probabilities of {len(trees)} trees match numpy")
    return outputs


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
