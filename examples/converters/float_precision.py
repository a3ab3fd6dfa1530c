"""float32 versus float64: a tree whose prediction flips in float32, and two fixes.

scikit-learn's trees read their input as float32 but keep each threshold in float64: the
midpoint between two training values. When those values are float32 neighbours ``a < b``,
the midpoint ``t`` has no float32 of its own, and ``np.float32(t)`` rounds to the nearest
float32, which may be ``b`` itself. Then for the input ``b`` scikit-learn computes
``b <= t``, false, and goes right, while the converted model computes ``b <= float32(t)``,
true, and goes left: a different leaf, a different prediction, for an input that was in the
training data.

Two ways to get scikit-learn's answer for every float32 input:

- store ``float32_at_or_below(t)``, the largest float32 not above ``t``
  (``convert_tree_regressor`` in ``trees.py`` does this);
- compare in double: cast the input to float64 and keep the thresholds exactly
  (``convert_tree_regressor_v5(..., dtype=np.float64)``, TreeEnsemble with double splits).

``convert_tree_regressor_rounding_to_nearest`` below is the converter with the bug, kept to
show the discrepancy; ``flipping_inputs`` lists the float32 inputs it gets wrong.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.opset.ai.onnx.ml import v3 as ml

from .trees import fitted_trees, node_lists


def convert_tree_regressor_rounding_to_nearest(estimator: Any) -> oc.proto.ModelProto:
    """Like ``trees.convert_tree_regressor`` but storing ``np.float32(threshold)``: wrong."""
    trees = fitted_trees(estimator)
    lists = node_lists(
        trees,
        lambda tree_id, tree, node: [(0, float(tree.value[node, 0, 0]) / len(trees))],
        to_float32=lambda thresholds: thresholds.astype(np.float32),  # the nearest float32
    )
    X = oc.arg("X", np.float32, ("N", estimator.n_features_in_))
    Y = ml.TreeEnsembleRegressor(
        X,
        n_targets=1,
        **lists.node_attributes(),
        target_treeids=lists.leaf_tree_ids,
        target_nodeids=lists.leaf_node_ids,
        target_ids=lists.leaf_targets,
        target_weights=lists.leaf_weights,
    )
    return oc.build(inputs=[X], outputs={"prediction": op.Reshape(Y, np.array([-1]))})


def flipping_inputs(estimator: Any) -> list[tuple[int, np.float32]]:
    """(feature, value) pairs that rounding to nearest sends the wrong way: the float32 just
    above a threshold whose nearest float32 is above it."""
    flips = []
    for tree in fitted_trees(estimator):
        for node in np.flatnonzero(tree.children_left >= 0):
            t = tree.threshold[node]
            nearest = np.float32(t)
            if float(nearest) > t:  # nearest > t, so x = nearest goes left instead of right
                flips.append((int(tree.feature[node]), nearest))
    return flips


def neighbours_tree() -> Any:
    """A one-split regressor trained on two float32 neighbours: its threshold lies between."""
    from sklearn.tree import DecisionTreeRegressor  # noqa: PLC0415 (only this demo needs it)

    # Neighbours 2**-13 apart (trees do not split values closer than 1e-7); ``low`` has an odd
    # last bit, so the midpoint rounds (to even) up to ``high``.
    low = np.nextafter(np.float32(1000.0), np.float32(2000.0))
    high = np.nextafter(low, np.float32(2000.0))
    X = np.array([[low], [high]], np.float32)
    return DecisionTreeRegressor().fit(X, np.array([0.0, 1.0]))
