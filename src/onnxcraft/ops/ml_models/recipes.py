"""Recipes of the ml models family: strategies drawing valid nodes of LinearClassifier,
LinearRegressor, SVMClassifier, SVMRegressor, TreeEnsembleClassifier, TreeEnsembleRegressor,
TreeEnsemble, every version.

The models' attributes are drawn consistent with each other; their values are arbitrary: the
property test checks types and shapes, not what a trained model predicts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import feature_rows, float_values

__all__ = ["register"]

_DOMAIN = "ai.onnx.ml"

_POST = st.sampled_from(["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"])


def _labels(n: NodeDraw, count: int, attrs: dict[str, Any], ints: str, strings: str) -> None:
    """Class labels, int64 or string as the output type parameter says."""
    if n.elem("T2") == ElementType.STRING:
        attrs[strings] = [f"c{i}" for i in range(count)]
    else:
        attrs[ints] = list(range(10, 10 + count))


@recipe
def linear_classifier(n: NodeDraw) -> NodeCase:
    x, features = feature_rows(n)
    classes = n.integer(2, 3)
    attrs: dict[str, Any] = {
        "coefficients": float_values(n, classes * features),
        "intercepts": float_values(n, classes),
        **n.attrs(multi_class=st.sampled_from([0, 1]), post_transform=_POST),
    }
    _labels(n, classes, attrs, "classlabels_ints", "classlabels_strings")
    return n.case([x], attrs, outputs=2)


@recipe
def linear_regressor(n: NodeDraw) -> NodeCase:
    x, features = feature_rows(n)
    targets = n.integer(1, 2)
    attrs = {
        "coefficients": float_values(n, targets * features),
        "intercepts": float_values(n, targets),
        "targets": targets,
    }
    return n.case([x], attrs)


_KERNELS = st.sampled_from(["LINEAR", "POLY", "RBF", "SIGMOID"])


@recipe
def svm_classifier(n: NodeDraw) -> NodeCase:
    x, features = feature_rows(n)
    classes = n.integer(2, 3)
    per_class = [n.integer(1, 2) for _ in range(classes)]
    vectors = sum(per_class)
    attrs: dict[str, Any] = {
        "vectors_per_class": per_class,
        "support_vectors": float_values(n, vectors * features),
        "coefficients": float_values(n, (classes - 1) * vectors),
        "rho": float_values(n, classes * (classes - 1) // 2),
        "kernel_params": [0.5, 1.0, 2.0],
        **n.attrs(kernel_type=_KERNELS, post_transform=st.sampled_from(["NONE", "LOGISTIC"])),
    }
    _labels(n, classes, attrs, "classlabels_ints", "classlabels_strings")
    return n.case([x], attrs, outputs=2)


@recipe
def svm_regressor(n: NodeDraw) -> NodeCase:
    x, features = feature_rows(n)
    supports = n.integer(1, 3)
    attrs: dict[str, Any] = {
        "n_supports": supports,
        "support_vectors": float_values(n, supports * features),
        "coefficients": float_values(n, supports),
        "rho": float_values(n, 1),
        "kernel_params": [0.5, 1.0, 2.0],
        **n.attrs(kernel_type=_KERNELS, one_class=st.sampled_from([0, 1])),
    }
    return n.case([x], attrs)


_MODES = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]


def _stumps(n: NodeDraw, features: int, trees: int) -> dict[str, Any]:
    """``trees`` trees of one branch node (id 0) and two leaves (ids 1 and 2)."""
    node_lists: dict[str, list[Any]] = {
        "nodes_treeids": [],
        "nodes_nodeids": [],
        "nodes_featureids": [],
        "nodes_modes": [],
        "nodes_values": [],
        "nodes_truenodeids": [],
        "nodes_falsenodeids": [],
    }
    for tree in range(trees):
        node_lists["nodes_treeids"] += [tree] * 3
        node_lists["nodes_nodeids"] += [0, 1, 2]
        node_lists["nodes_featureids"] += [n.integer(0, features - 1), 0, 0]
        node_lists["nodes_modes"] += [n.choice(_MODES), "LEAF", "LEAF"]
        node_lists["nodes_values"] += [n.choice([-1.0, 0.0, 1.0]), 0.0, 0.0]
        node_lists["nodes_truenodeids"] += [1, 0, 0]
        node_lists["nodes_falsenodeids"] += [2, 0, 0]
    return node_lists


@recipe
def tree_ensemble_regressor(n: NodeDraw) -> NodeCase:
    x, features = feature_rows(n)
    trees, targets = n.integer(1, 2), n.integer(1, 2)
    attrs: dict[str, Any] = _stumps(n, features, trees)
    leaves = [(t, leaf) for t in range(trees) for leaf in (1, 2)]
    attrs.update(
        n_targets=targets,
        target_treeids=[t for t, _ in leaves],
        target_nodeids=[leaf for _, leaf in leaves],
        target_ids=[n.integer(0, targets - 1) for _ in leaves],
        target_weights=float_values(n, len(leaves)),
        aggregate_function=n.choice(["SUM", "AVERAGE", "MIN", "MAX"]),
    )
    return n.case([x], attrs)


@recipe
def tree_ensemble_classifier(n: NodeDraw) -> NodeCase:
    x, features = feature_rows(n)
    trees, classes = n.integer(1, 2), n.integer(2, 3)
    attrs: dict[str, Any] = _stumps(n, features, trees)
    entries = [(t, leaf, c) for t in range(trees) for leaf in (1, 2) for c in range(classes)]
    attrs.update(
        class_treeids=[t for t, _, _ in entries],
        class_nodeids=[leaf for _, leaf, _ in entries],
        class_ids=[c for _, _, c in entries],
        class_weights=float_values(n, len(entries)),
        **n.attrs(post_transform=st.sampled_from(["NONE", "LOGISTIC", "SOFTMAX"])),
    )
    _labels(n, classes, attrs, "classlabels_int64s", "classlabels_strings")
    return n.case([x], attrs, outputs=2)


@recipe
def tree_ensemble(n: NodeDraw) -> NodeCase:
    x, features = feature_rows(n)
    elem = n.elem("T")
    dtype = numpy_dtype(elem)
    trees, targets = n.integer(1, 2), n.integer(1, 2)
    leaf_count = 2 * trees
    attrs: dict[str, Any] = {
        "tree_roots": list(range(trees)),
        "nodes_featureids": [n.integer(0, features - 1) for _ in range(trees)],
        "nodes_modes": np.asarray([n.integer(0, 5) for _ in range(trees)], dtype=np.uint8),
        "nodes_splits": np.asarray([n.choice([-1.0, 0.0, 1.0]) for _ in range(trees)], dtype),
        # tree t's root sends true to leaf 2t and false to leaf 2t + 1
        "nodes_truenodeids": [2 * t for t in range(trees)],
        "nodes_trueleafs": [1] * trees,
        "nodes_falsenodeids": [2 * t + 1 for t in range(trees)],
        "nodes_falseleafs": [1] * trees,
        "leaf_targetids": [n.integer(0, targets - 1) for _ in range(leaf_count)],
        "leaf_weights": np.asarray(float_values(n, leaf_count), dtype),
        "n_targets": targets,
        **n.attrs(
            aggregate_function=st.sampled_from([0, 1, 2, 3]),
            post_transform=st.sampled_from([0, 1, 2]),
        ),
    }
    return n.case([x], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("LinearClassifier", linear_classifier, domain=_DOMAIN)
    recipes.add("LinearRegressor", linear_regressor, domain=_DOMAIN)
    recipes.add("SVMClassifier", svm_classifier, domain=_DOMAIN)
    recipes.add("SVMRegressor", svm_regressor, domain=_DOMAIN)
    recipes.add("TreeEnsembleClassifier", tree_ensemble_classifier, domain=_DOMAIN)
    recipes.add("TreeEnsembleRegressor", tree_ensemble_regressor, domain=_DOMAIN)
    recipes.add("TreeEnsemble", tree_ensemble, domain=_DOMAIN)
