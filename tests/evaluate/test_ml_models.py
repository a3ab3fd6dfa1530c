"""Kernels of the ai.onnx.ml models (tree ensembles, linear models, SVMs) against onnxruntime.

onnxcraft evaluates models built with the DSL; onnxruntime runs the same attributes built with
``onnx.helper``. Where onnxruntime departs from the standard or from its own outputs (listed in
the docstring of ``onnxcraft.ops.ml_models.kernels``), the expected values are re-derived with numpy
from onnxruntime's untransformed scores, or computed by hand; each such test says why.
"""

from __future__ import annotations

import time
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from onnxcraft import specs
from onnxcraft.errors import EvaluationError
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.infer.rules import default_rules
from onnxcraft.ops.ml_models import kernels as ml_models
from tests.evaluate._ml_models_cases import (
    AGGREGATES,
    ML,
    OLD_MODES,
    ForestCase,
    LinearCase,
    Node,
    RegressionCase,
    SvcCase,
    assert_matches_onnxruntime,
    assert_same_labels,
    assert_transformed,
    binary_cases,
    classifier_attrs,
    complete_forest,
    dsl_model,
    helper_model,
    linear_classifier_attrs,
    linear_classifier_cases,
    linear_regressor_cases,
    multiclass_cases,
    one_split,
    one_split_classifier,
    onnxcraft_outputs,
    onnxruntime_outputs,
    ort_code,
    regressor_attrs,
    regressor_cases,
    svm_classifier_cases,
    svm_regressor_cases,
    tree_ensemble_attrs,
    tree_ensemble_case_attrs,
    tree_ensemble_cases,
)

OPERATORS = (
    "TreeEnsemble",
    "TreeEnsembleClassifier",
    "TreeEnsembleRegressor",
    "LinearClassifier",
    "LinearRegressor",
    "SVMClassifier",
    "SVMRegressor",
)
PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_spec_version_has_a_kernel_and_a_rule() -> None:
    kernel_table, rule_table = default_registry(), default_rules()
    expected = {
        "TreeEnsemble": (5,),
        "TreeEnsembleClassifier": (1, 3, 5),
        "TreeEnsembleRegressor": (1, 3, 5),
    }
    for op_type in OPERATORS:
        found = specs.versions(op_type, ML)
        assert found == expected.get(op_type, (1,)), (op_type, found)
        for version in found:
            assert kernel_table.lookup(ML, op_type, version) is not None, (op_type, version)
            assert rule_table.lookup(ML, op_type, version) is not None, (op_type, version)


# -- model plumbing ------------------------------------------------------------------------------


def tree_model(op: str, opset: int, attrs: dict[str, Any], x: np.ndarray) -> Any:
    """The model onnxcraft evaluates: DSL-built, except version 5 of the deprecated operators
    (the DSL offers TreeEnsemble in their place)."""
    if opset == 5 and op != "TreeEnsemble":
        return helper_model(op, 5, attrs, x.dtype, 1 if op.endswith("Regressor") else 2)
    return dsl_model(op, opset, attrs, x)


def oracle(op: str, attrs: dict[str, Any], x: np.ndarray, opset: int, **changes: Any) -> list[Any]:
    """onnxruntime's outputs for the attributes (with ``changes``), built with onnx.helper.

    onnxruntime refuses the deprecated version 5 of the older tree operators: it runs version 3,
    whose semantics are the same.
    """
    outputs = 1 if op.endswith("Regressor") or op == "TreeEnsemble" else 2
    version = 3 if opset == 5 and op != "TreeEnsemble" else opset
    model = helper_model(op, version, {**attrs, **changes}, x.dtype, outputs)
    return onnxruntime_outputs(model, x)


# -- TreeEnsembleRegressor -----------------------------------------------------------------------


@PROPERTY
@given(regressor_cases())
def test_tree_ensemble_regressor_matches_onnxruntime(case: ForestCase) -> None:
    attrs = regressor_attrs(case)
    (got,) = onnxcraft_outputs(
        tree_model("TreeEnsembleRegressor", case.opset, attrs, case.x), case.x
    )
    assert got.dtype == np.float32 and got.shape == (case.x.shape[0], case.n_outputs)
    # onnxruntime skips LOGISTIC and the softmaxes on one target and approximates PROBIT: the
    # transform is re-derived from its untransformed scores.
    (raw,) = oracle("TreeEnsembleRegressor", attrs, case.x, case.opset, post_transform="NONE")
    assert_transformed(got, raw, case.transform, rtol=1e-5, atol=1e-5)
    if case.n_outputs > 1 and case.transform != "PROBIT":
        (direct,) = oracle("TreeEnsembleRegressor", attrs, case.x, case.opset)
        assert_matches_onnxruntime(got, direct, raw, case.transform, rtol=1e-5, atol=1e-6)


# -- TreeEnsembleClassifier ----------------------------------------------------------------------


@PROPERTY
@given(multiclass_cases())
def test_tree_ensemble_classifier_multiclass_matches_onnxruntime(
    case_labels: tuple[ForestCase, list[Any]],
) -> None:
    case, labels = case_labels
    attrs = classifier_attrs(case, labels)
    model = tree_model("TreeEnsembleClassifier", case.opset, attrs, case.x)
    got_labels, got_scores = onnxcraft_outputs(model, case.x)
    ort_labels, raw = oracle(
        "TreeEnsembleClassifier", attrs, case.x, case.opset, post_transform="NONE"
    )
    assert got_scores.dtype == np.float32 and got_scores.shape == raw.shape
    assert got_labels.dtype == ort_labels.dtype
    assert_same_labels(got_labels, ort_labels, labels, raw)
    assert_transformed(got_scores, raw, case.transform, rtol=1e-5, atol=1e-5)
    if case.transform != "PROBIT":  # onnxruntime approximates the normal quantile
        _, direct = oracle("TreeEnsembleClassifier", attrs, case.x, case.opset)
        assert_matches_onnxruntime(got_scores, direct, raw, case.transform, rtol=1e-5, atol=1e-6)


@PROPERTY
@given(binary_cases())
def test_tree_ensemble_classifier_binary_single_column(
    case_labels: tuple[ForestCase, list[Any]],
) -> None:
    """One score s for two labels: a probability under NONE with non-negative weights (columns
    1 - s and s, second label when s > 0.5), a margin otherwise (-s and s, second label when
    s > 0); PROBIT reads a probability. onnxruntime agrees under NONE and LOGISTIC (except the
    label of LOGISTIC with non-negative weights, which it thresholds at 0.5); for the other
    transforms it writes untransformed or partial columns, so they are re-derived from s."""
    case, labels = case_labels
    attrs = classifier_attrs(case, labels)
    model = tree_model("TreeEnsembleClassifier", case.opset, attrs, case.x)
    got_labels, got_scores = onnxcraft_outputs(model, case.x)
    ort_labels, ort_none = oracle(
        "TreeEnsembleClassifier", attrs, case.x, case.opset, post_transform="NONE"
    )
    s = ort_none[:, 1].astype(np.float64)  # onnxruntime's NONE columns end with s
    positive = all(w >= 0 for t in case.trees for n in t.walk() for _, w in n.weights)
    probability = case.transform == "PROBIT" or (case.transform == "NONE" and positive)
    columns = np.stack([1 - s if probability else -s, s], axis=1)
    assert_transformed(got_scores, columns, case.transform, rtol=1e-5, atol=1e-6)
    second = s > (0.5 if probability else 0.0)
    np.testing.assert_array_equal(got_labels, np.where(second, labels[1], labels[0]))
    if case.transform == "NONE":
        np.testing.assert_array_equal(got_labels, ort_labels)
        np.testing.assert_allclose(got_scores, ort_none, rtol=1e-6, atol=1e-6)
    if case.transform == "LOGISTIC":
        direct_labels, direct = oracle("TreeEnsembleClassifier", attrs, case.x, case.opset)
        np.testing.assert_allclose(got_scores, direct, rtol=1e-5, atol=1e-6)
        if not positive:
            np.testing.assert_array_equal(got_labels, direct_labels)


@PROPERTY
@given(multiclass_cases().filter(lambda c: c[0].transform != "PROBIT"), st.booleans())
def test_tree_ensemble_classifier_two_labels_two_columns(
    case_labels: tuple[ForestCase, list[Any]], with_base: bool
) -> None:
    """Two labels whose weights fill both columns are an ordinary two-class model. onnxruntime
    computes the scores without base values, but reports labels 0/1 by the sign of the second
    column and mixes the columns when base values are given: labels and base values are
    re-derived here."""
    case, _ = case_labels
    case.trees = [_keep_two_classes(t) for t in case.trees]
    case.x = case.x.astype(np.float32)
    labels = ["no", "yes"] if case.seed % 2 else [10, 20]
    attrs = classifier_attrs(case, labels)
    attrs.pop("base_values", None)
    base = np.array([0.25, -0.5]) if with_base else np.zeros(2)
    if with_base:
        attrs["base_values"] = base.tolist()
    model = tree_model("TreeEnsembleClassifier", case.opset, attrs, case.x)
    got_labels, got_scores = onnxcraft_outputs(model, case.x)
    plain = {k: v for k, v in attrs.items() if k != "base_values"}
    _, raw = oracle("TreeEnsembleClassifier", plain, case.x, case.opset, post_transform="NONE")
    raw = raw + base
    assert_transformed(got_scores, raw, case.transform, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got_labels, np.asarray(labels)[np.argmax(raw, axis=1)])
    if not with_base:
        _, direct = oracle("TreeEnsembleClassifier", plain, case.x, case.opset)
        assert_matches_onnxruntime(got_scores, direct, raw, case.transform, rtol=1e-5, atol=1e-6)


def _keep_two_classes(node: Node) -> Node:
    for n in node.walk():
        n.weights = [(t % 2, w) for t, w in n.weights]
    return node


# -- TreeEnsemble-5 ------------------------------------------------------------------------------


@PROPERTY
@given(tree_ensemble_cases())
def test_tree_ensemble_matches_onnxruntime(case: ForestCase) -> None:
    attrs = tree_ensemble_case_attrs(case, case.x.dtype)
    (got,) = onnxcraft_outputs(dsl_model("TreeEnsemble", 5, attrs, case.x), case.x)
    assert got.dtype == case.x.dtype and got.shape == (case.x.shape[0], case.n_outputs)
    (raw,) = oracle("TreeEnsemble", attrs, case.x, 5, post_transform=0)
    tol = 1e-5 if case.x.dtype == np.float32 else 1e-12
    assert_transformed(got, raw, case.transform, rtol=tol, atol=tol)
    if case.n_outputs > 1 and case.transform != "PROBIT":
        (direct,) = oracle("TreeEnsemble", attrs, case.x, 5, post_transform=ort_code(case))
        # onnxruntime transforms double scores in single precision
        assert_matches_onnxruntime(got, direct, raw, case.transform, rtol=1e-6, atol=1e-6)


@settings(max_examples=15, deadline=None)
@given(
    tree_ensemble_cases(dtypes=(np.float16,)).filter(
        lambda c: c.n_outputs > 1 and c.transform != "PROBIT"
    )
)
def test_tree_ensemble_float16_matches_onnxruntime_in_float32(case: ForestCase) -> None:
    """onnxruntime has no float16 TreeEnsemble: the oracle runs the same forest (its splits,
    weights and inputs are exact in float16) in float32; the outputs agree to float16
    precision."""
    attrs = tree_ensemble_case_attrs(case, np.float16)
    (got,) = onnxcraft_outputs(dsl_model("TreeEnsemble", 5, attrs, case.x), case.x)
    assert got.dtype == np.float16
    x32 = case.x.astype(np.float32)
    attrs32 = tree_ensemble_case_attrs(case, np.float32)
    (expected,) = oracle("TreeEnsemble", attrs32, x32, 5, post_transform=ort_code(case))
    (raw,) = oracle("TreeEnsemble", attrs32, x32, 5, post_transform=0)
    assert_matches_onnxruntime(
        got.astype(np.float32), expected, raw, case.transform, rtol=2e-3, atol=2e-3
    )


# -- tree semantics, computed by hand ------------------------------------------------------------


def regress(attrs: dict[str, Any], x: Any, opset: int = 3) -> np.ndarray:
    x = np.asarray(x)
    return onnxcraft_outputs(dsl_model("TreeEnsembleRegressor", opset, attrs, x), x)[0]


# Where x = 0, 0.5, 1 and NaN go for a threshold of 0.5 (True: the true branch); the NaN entry
# is the missing-value flag, for every mode.
MODE_TABLE = {
    "BRANCH_LEQ": (True, True, False),
    "BRANCH_LT": (True, False, False),
    "BRANCH_GTE": (False, True, True),
    "BRANCH_GT": (False, False, True),
    "BRANCH_EQ": (False, True, False),
    "BRANCH_NEQ": (True, False, True),
}


@pytest.mark.parametrize("mode", OLD_MODES)
@pytest.mark.parametrize("track", [0, 1])
def test_every_branch_mode_and_missing_value_flag(mode: str, track: int) -> None:
    x = np.array([[0.0], [0.5], [1.0], [np.nan]], np.float32)
    expected = [1.0 if t else 2.0 for t in (*MODE_TABLE[mode], bool(track))]
    got = regress(one_split(mode, track=track), x)
    np.testing.assert_array_equal(got.ravel(), expected)
    v5 = tree_ensemble_attrs(
        [
            Node(
                mode=mode,
                threshold=0.5,
                missing_true=bool(track),
                true=Node(weights=[(0, 1.0)]),
                false=Node(weights=[(0, 2.0)]),
            )
        ],
        np.float32,
        1,
    )
    (got5,) = onnxcraft_outputs(dsl_model("TreeEnsemble", 5, v5, x), x)
    np.testing.assert_array_equal(got5.ravel(), expected)


def test_nan_follows_the_missing_value_flag_even_for_branch_neq() -> None:
    """The standard: NaN takes the false branch unless nodes_missing_value_tracks_true is 1.
    onnxruntime compares instead, and NaN != threshold sends it down the true branch."""
    x = np.array([[np.nan]], np.float32)
    assert regress(one_split("BRANCH_NEQ", track=0), x).item() == 2.0
    assert regress(one_split("BRANCH_NEQ", track=1), x).item() == 1.0


def member_tree(members: list[float], track: int = 0) -> dict[str, Any]:
    return {
        "n_targets": 1,
        "tree_roots": [0],
        "nodes_modes": np.array([6], np.uint8),
        "nodes_featureids": [0],
        "nodes_splits": np.array([0.0], np.float32),
        "nodes_truenodeids": [0],
        "nodes_trueleafs": [1],
        "nodes_falsenodeids": [1],
        "nodes_falseleafs": [1],
        "nodes_missing_value_tracks_true": [track],
        "leaf_targetids": [0, 0],
        "leaf_weights": np.array([1.0, 2.0], np.float32),
        "membership_values": np.array(members, np.float32),
    }


@pytest.mark.parametrize(
    ("members", "track", "expected"),
    [
        ([0.0, 2.0, np.nan], 0, [1, 2, 1, 2, 2, 2]),
        ([0.0, 2.0], 0, [1, 2, 1, 2, 2, 2]),  # the last set may omit its NaN
        ([0.0, 2.0, np.nan], 1, [1, 2, 1, 2, 1, 2]),
        ([np.nan], 0, [2, 2, 2, 2, 2, 2]),  # an empty set
        ([1.0, -2.0, 0.25, np.nan], 0, [2, 1, 2, 1, 2, 1]),  # any values, not only integers
    ],
)
def test_set_membership(members: list[float], track: int, expected: list[int]) -> None:
    """Values are compared exactly (onnxruntime truncates them to integers: 0.25 would be 0)."""
    x = np.array([[0.0], [1.0], [2.0], [-2.0], [np.nan], [0.25]], np.float32)
    attrs = member_tree(members, track)
    (got,) = onnxcraft_outputs(dsl_model("TreeEnsemble", 5, attrs, x), x)
    np.testing.assert_array_equal(got.ravel(), np.array(expected, np.float32))


def test_every_weight_of_a_leaf_counts() -> None:
    """Two weights of one leaf for one target add up (onnxruntime's one-target path keeps the
    first); under MIN and MAX each is a candidate."""
    attrs = one_split("BRANCH_LEQ")
    attrs.update(
        target_treeids=[0, 0, 0],
        target_nodeids=[1, 2, 1],
        target_ids=[0, 0, 0],
        target_weights=[1.0, 2.0, 0.5],
    )
    x = np.array([[0.0], [1.0]], np.float32)
    np.testing.assert_array_equal(regress(attrs, x).ravel(), [1.5, 2.0])
    np.testing.assert_array_equal(
        regress({**attrs, "aggregate_function": "MIN"}, x).ravel(), [0.5, 2.0]
    )
    np.testing.assert_array_equal(
        regress({**attrs, "aggregate_function": "MAX"}, x).ravel(), [1.0, 2.0]
    )


@pytest.mark.parametrize("aggregate", AGGREGATES)
def test_a_target_no_leaf_votes_for_is_its_base_value(aggregate: str) -> None:
    """Target 1 gets no vote: it scores 0 plus its base value (onnxruntime leaves it at 0)."""
    attrs = {
        **one_split("BRANCH_LEQ"),
        "n_targets": 2,
        "aggregate_function": aggregate,
        "base_values": [0.5, -3.0],
    }
    got = regress(attrs, np.array([[0.0], [1.0]], np.float32))
    np.testing.assert_array_equal(got, [[1.5, -3.0], [2.5, -3.0]])


def test_node_and_tree_ids_need_not_be_positions() -> None:
    """Ids are looked up: any ids, in any order, with each tree's root listed first; the same
    forest numbered 0..n-1 runs on onnxruntime."""
    sparse = {
        "nodes_treeids": [7, 7, 7, 3, 3, 3],
        "nodes_nodeids": [40, 10, 30, 5, 1, 2],
        "nodes_featureids": [1, 0, 0, 0, 0, 0],
        "nodes_modes": ["BRANCH_GT", "LEAF", "LEAF", "BRANCH_LT", "LEAF", "LEAF"],
        "nodes_values": [0.0, 0, 0, 0.5, 0, 0],
        "nodes_truenodeids": [10, 0, 0, 2, 0, 0],
        "nodes_falsenodeids": [30, 0, 0, 1, 0, 0],
        "target_treeids": [7, 7, 3, 3],
        "target_nodeids": [10, 30, 1, 2],
        "target_ids": [0, 0, 0, 0],
        "target_weights": [1.0, 2.0, 10.0, 20.0],
        "n_targets": 1,
    }
    dense = {
        **sparse,
        "nodes_treeids": [1, 1, 1, 0, 0, 0],
        "nodes_nodeids": [0, 1, 2, 0, 1, 2],
        "nodes_truenodeids": [1, 0, 0, 2, 0, 0],
        "nodes_falsenodeids": [2, 0, 0, 1, 0, 0],
        "target_treeids": [1, 1, 0, 0],
        "target_nodeids": [1, 2, 1, 2],
    }
    x = np.array([[0.0, 1.0], [1.0, -1.0], [0.5, 0.0]], np.float32)
    (expected,) = oracle("TreeEnsembleRegressor", dense, x, 3)
    np.testing.assert_array_equal(regress(sparse, x), expected)
    np.testing.assert_array_equal(expected.ravel(), [21.0, 12.0, 12.0])


def test_a_tree_may_be_a_single_leaf() -> None:
    attrs = {
        "nodes_treeids": [0],
        "nodes_nodeids": [0],
        "nodes_modes": ["LEAF"],
        "target_treeids": [0],
        "target_nodeids": [0],
        "target_ids": [0],
        "target_weights": [4.0],
        "n_targets": 1,
    }
    x = np.zeros((3, 2), np.float32)
    np.testing.assert_array_equal(regress(attrs, x).ravel(), [4.0, 4.0, 4.0])
    degenerate = tree_ensemble_attrs([Node(weights=[(0, 4.0)])], np.float32, 1)
    assert degenerate["nodes_truenodeids"] == degenerate["nodes_falsenodeids"] == [0]
    (got,) = onnxcraft_outputs(dsl_model("TreeEnsemble", 5, degenerate, x), x)
    np.testing.assert_array_equal(got.ravel(), [4.0, 4.0, 4.0])


def test_shapes_one_sample_and_empty_batch() -> None:
    attrs = one_split("BRANCH_LEQ")
    one = regress(attrs, np.array([0.0, 7.0], np.float32))
    assert one.shape == (1, 1) and one.item() == 1.0
    empty = regress(attrs, np.zeros((0, 2), np.float32))
    assert empty.shape == (0, 1) and empty.dtype == np.float32
    clf = one_split_classifier()
    del clf["classlabels_int64s"]
    clf["classlabels_strings"] = ["a", "b", "c"]
    x = np.zeros((0, 1), np.float32)
    labels, scores = onnxcraft_outputs(dsl_model("TreeEnsembleClassifier", 3, clf, x), x)
    assert labels.shape == (0,) and scores.shape == (0, 3)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_integer_inputs(dtype: Any) -> None:
    """onnxruntime has no integer TreeEnsembleRegressor: the oracle runs the same integers as
    doubles (exact)."""
    attrs = {**one_split("BRANCH_GTE", threshold=1.0), "n_targets": 1}
    x = np.array([[0], [1], [2], [-3]], dtype)
    (expected,) = oracle("TreeEnsembleRegressor", attrs, x.astype(np.float64), 3)
    np.testing.assert_array_equal(regress(attrs, x), expected)


def test_double_thresholds_with_float_input_compare_exactly() -> None:
    """nodes_values_as_tensor keeps thresholds in double precision; a float input is compared
    with them exactly, as the same input in double (onnxruntime reads double thresholds only for
    double inputs)."""
    attrs = one_split("BRANCH_LEQ")
    attrs.pop("nodes_values")
    attrs["nodes_values_as_tensor"] = np.array([0.1, 0.0, 0.0])
    x = np.array([[0.1], [np.nextafter(np.float32(0.1), np.float32(0))]], np.float32)
    (expected,) = oracle("TreeEnsembleRegressor", attrs, x.astype(np.float64), 3)
    got = regress(attrs, x)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got.ravel(), [2.0, 1.0])  # float32(0.1) > 0.1 in double


def test_double_attribute_tensors_match_onnxruntime() -> None:
    """Every *_as_tensor twin of version 3 (thresholds, weights, base values), with the double
    input onnxruntime needs for them."""
    x = np.array([[0.1], [0.2], [np.nan]], np.float64)
    reg = one_split("BRANCH_LT", threshold=0.0, track=1)
    for name in ("nodes_values", "target_weights"):
        reg[f"{name}_as_tensor"] = np.array(reg.pop(name), np.float64)
    reg["nodes_values_as_tensor"][0] = 0.15000000000000002
    reg["target_weights_as_tensor"] = np.array([0.1, 1e-9])
    reg["base_values_as_tensor"] = np.array([1e-10])
    (expected,) = oracle("TreeEnsembleRegressor", reg, x, 3)
    np.testing.assert_allclose(regress(reg, x), expected, rtol=1e-7)
    clf = one_split_classifier(labels=(1, 2, 3))
    clf.pop("class_weights")
    clf["class_weights_as_tensor"] = np.array([0.25, 0.5])
    clf["base_values_as_tensor"] = np.array([0.125, -0.125, 0.0625])
    ort_labels, ort_scores = oracle("TreeEnsembleClassifier", clf, x, 3)
    labels, scores = onnxcraft_outputs(dsl_model("TreeEnsembleClassifier", 3, clf, x), x)
    np.testing.assert_array_equal(labels, ort_labels)
    np.testing.assert_allclose(scores, ort_scores, rtol=1e-7)


def test_binary_classifier_with_weights_in_the_second_column() -> None:
    """class_ids all 1 is the same single-score binary model as class_ids all 0 (onnxruntime
    writes (0, s) then)."""
    attrs = {**one_split_classifier(labels=(4, 8)), "class_weights": [0.75, -0.25]}
    x = np.array([[0.0], [1.0]], np.float32)
    for column in (0, 1):
        attrs["class_ids"] = [column, column]
        labels, scores = onnxcraft_outputs(dsl_model("TreeEnsembleClassifier", 3, attrs, x), x)
        np.testing.assert_array_equal(labels, [8, 4])
        np.testing.assert_array_equal(scores, [[-0.75, 0.75], [0.25, -0.25]])


def test_binary_classifier_logistic_label_follows_the_probability() -> None:
    """With non-negative weights and LOGISTIC, s = 0.25 gives P(second) = logistic(0.25) > 0.5:
    the second label (onnxruntime thresholds the raw s at 0.5 and reports the first)."""
    attrs = one_split_classifier(labels=(0, 1))
    attrs.update(class_ids=[0, 0], class_weights=[0.25, 0.75], post_transform="LOGISTIC")
    x = np.array([[0.0], [1.0]], np.float32)
    labels, scores = onnxcraft_outputs(dsl_model("TreeEnsembleClassifier", 3, attrs, x), x)
    np.testing.assert_array_equal(labels, [1, 1])
    p = 1 / (1 + np.exp(-np.array([0.25, 0.75])))
    np.testing.assert_allclose(scores, np.stack([1 - p, p], axis=1), rtol=1e-6)


def test_probit_is_the_standard_normal_quantile() -> None:
    """Known quantiles (onnxruntime's approximation is off by ~1e-3 here)."""
    attrs = {**one_split("BRANCH_LEQ"), "post_transform": "PROBIT", "n_targets": 1}
    for p, z in (
        (0.975, 1.959963984540054),
        (0.5, 0.0),
        (0.1, -1.2815515655446004),
        (0.0, -np.inf),
        (1.0, np.inf),
    ):
        attrs["target_weights"] = [p, 0.0]
        got = regress(attrs, np.array([[0.0]], np.float32)).item()
        assert got == pytest.approx(z, abs=1e-6) if np.isfinite(z) else got == z
    attrs["target_weights"] = [1.5, 0.0]
    assert np.isnan(regress(attrs, np.array([[0.0]], np.float32)).item())
    assert NormalDist().cdf(1.959963984540054) == pytest.approx(0.975)


def test_softmax_zero_keeps_zero_scores_at_zero() -> None:
    attrs = {**one_split("BRANCH_LEQ"), "n_targets": 3, "post_transform": "SOFTMAX_ZERO"}
    attrs.update(
        target_treeids=[0, 0, 0, 0],
        target_nodeids=[1, 1, 2, 2],
        target_ids=[0, 2, 0, 1],
        target_weights=[1.0, -1.0, 0.0, 0.0],
    )
    got = regress(attrs, np.array([[0.0], [1.0]], np.float32))
    e = np.exp([0.0, -2.0])
    np.testing.assert_allclose(
        got, [[e[0] / e.sum(), 0.0, e[1] / e.sum()], [0.0, 0.0, 0.0]], rtol=1e-6
    )


def test_deep_forest_is_fast() -> None:
    """100 trees of depth 10 on 10,000 rows: one vectorised step per level (a per-row loop
    would take minutes)."""
    rng = np.random.default_rng(0)
    attrs = complete_forest(rng, trees=100, depth=10, n_features=20, n_outputs=1, prefix="target")
    x = rng.standard_normal((10_000, 20)).astype(np.float32)
    start = time.perf_counter()
    got = ml_models.tree_ensemble_regressor(x, n_targets=1, **attrs)
    elapsed = time.perf_counter() - start
    assert got.shape == (10_000, 1)
    assert elapsed < 3.0, f"{elapsed:.2f} s"


# -- malformed attributes ------------------------------------------------------------------------


def _with(attrs: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**attrs, **changes}


BASE = one_split("BRANCH_LEQ")
MALFORMED_REGRESSORS = [
    (_with(BASE, nodes_nodeids=[0, 1]), ["nodes_nodeids", "nodes_treeids", "2", "3"]),
    (_with(BASE, nodes_modes=["BRANCH_LEQ", "LEAF", "BRANCH_XX"]), ["nodes_modes[2]", "BRANCH_XX"]),
    (_with(BASE, nodes_truenodeids=[9, 0, 0]), ["nodes_truenodeids[0]", "9", "tree 0"]),
    (_with(BASE, nodes_nodeids=[0, 1, 1]), ["node 1 of tree 0", "twice"]),
    (
        _with(
            BASE,
            nodes_modes=["BRANCH_LEQ", "BRANCH_LEQ", "LEAF"],
            nodes_truenodeids=[1, 0, 0],
            nodes_falsenodeids=[2, 0, 0],
        ),
        ["cycle"],
    ),
    (_with(BASE, nodes_featureids=[5, 0, 0]), ["nodes_featureids", "feature 5", "1 features"]),
    (_with(BASE, target_nodeids=[1, 7]), ["target_treeids/target_nodeids entry 1", "node 7"]),
    (_with(BASE, target_ids=[0, 3]), ["target_ids[1]", "3", "1 targets"]),
    (_with(BASE, target_weights=[1.0]), ["target_weights", "1 entries", "2"]),
    (_with(BASE, base_values=[1.0, 2.0]), ["base_values", "2 entries", "0 or 1"]),
    (_with(BASE, aggregate_function="MEDIAN"), ["aggregate_function", "MEDIAN"]),
    (_with(BASE, post_transform="SIGMOID"), ["post_transform", "SIGMOID"]),
    (
        _with(BASE, nodes_values=[0.5, 0.0, 0.0], nodes_values_as_tensor=np.array([0.5, 0, 0])),
        ["nodes_values_as_tensor", "not both"],
    ),
    (_with(BASE, nodes_values=[np.nan, 0.0, 0.0]), ["nodes_values[0]", "NaN"]),
    (
        # The leaves listed before their parent: the first listed node would be the root.
        _with(
            BASE,
            nodes_nodeids=[1, 2, 0],
            nodes_modes=["LEAF", "LEAF", "BRANCH_LEQ"],
            nodes_values=[0.0, 0.0, 0.5],
            nodes_truenodeids=[0, 0, 1],
            nodes_falsenodeids=[0, 0, 2],
        ),
        ["node 1 of tree 0", "listed first", "node 0 branches to it", "root before"],
    ),
    ({k: v for k, v in BASE.items() if k != "n_targets"}, ["n_targets", "required"]),
    (_with(BASE, nodes_treeids=[], nodes_nodeids=[], nodes_modes=[]), ["no nodes"]),
]


@pytest.mark.parametrize(("attrs", "fragments"), MALFORMED_REGRESSORS)
def test_malformed_tree_attributes_are_named(attrs: dict[str, Any], fragments: list[str]) -> None:
    with pytest.raises(EvaluationError) as info:
        ml_models.tree_ensemble_regressor(np.zeros((2, 1), np.float32), **attrs)
    message = str(info.value)
    assert message.startswith("TreeEnsembleRegressor: ")
    for fragment in fragments:
        assert fragment in message, message


V5 = member_tree([0.0, np.nan])
MALFORMED_V5 = [
    (_with(V5, nodes_splits=np.array([0.0])), ["nodes_splits", "float32", "float64"]),
    (_with(V5, leaf_weights=np.array([1.0, 2.0])), ["leaf_weights", "element type of X"]),
    (_with(V5, nodes_modes=np.array([9], np.uint8)), ["nodes_modes[0]", "9", "0..6"]),
    (_with(V5, nodes_modes=np.array([6], np.int64)), ["nodes_modes", "uint8", "int64"]),
    (_with(V5, nodes_truenodeids=[5]), ["nodes_truenodeids[0]", "5", "leaf_*", "2 entries"]),
    (_with(V5, nodes_trueleafs=[0], nodes_truenodeids=[3]), ["nodes_truenodeids[0]", "nodes_*"]),
    (_with(V5, leaf_targetids=[0, 2]), ["leaf_targetids[1]", "n_targets is 1"]),
    (_with(V5, tree_roots=[1]), ["tree_roots", "0..0"]),
    (
        _with(V5, membership_values=np.array([0.0, np.nan, 1.0, np.nan], np.float32)),
        ["membership_values", "2 NaN-separated sets", "1 nodes"],
    ),
    ({k: v for k, v in V5.items() if k != "membership_values"}, ["membership_values", "required"]),
    (_with(V5, aggregate_function=7), ["aggregate_function", "0..3"]),
    (_with(V5, post_transform=5), ["post_transform", "0..4"]),
    (_with(V5, nodes_featureids=[0, 0]), ["nodes_featureids", "nodes_modes"]),
]


@pytest.mark.parametrize(("attrs", "fragments"), MALFORMED_V5)
def test_malformed_tree_ensemble_attributes_are_named(
    attrs: dict[str, Any], fragments: list[str]
) -> None:
    with pytest.raises(EvaluationError) as info:
        ml_models.tree_ensemble(np.zeros((2, 1), np.float32), **attrs)
    message = str(info.value)
    assert message.startswith("TreeEnsemble: ")
    for fragment in fragments:
        assert fragment in message, message


def test_malformed_classifier_attributes_are_named() -> None:
    attrs = one_split_classifier()
    del attrs["classlabels_int64s"]
    attrs["class_ids"] = [0, 0]  # one score column
    x = np.zeros((1, 1), np.float32)
    cases = [
        ({"classlabels_int64s": [1, 2], "classlabels_strings": ["a", "b"]}, "got both"),
        ({}, "got neither"),
        ({"classlabels_int64s": [1, 2], "base_values": [0.1, 0.2]}, "one score column"),
        ({"classlabels_int64s": [1, 2, 3], "base_values": [0.1, 0.2]}, "expected 0 or 3"),
        ({"classlabels_int64s": [1], "class_ids": [0, 1]}, "class_ids[1] = 1"),
    ]
    for extra, fragment in cases:
        with pytest.raises(EvaluationError, match=r"^TreeEnsembleClassifier: ") as info:
            ml_models.tree_ensemble_classifier(x, **{**attrs, **extra})
        assert fragment in str(info.value)


@pytest.mark.parametrize(
    "x",
    [np.zeros((2, 1, 1), np.float32), np.float32(1.0), np.array([["a"]]), np.ones((1, 1), bool)],
)
def test_bad_inputs_are_named(x: Any) -> None:
    with pytest.raises(EvaluationError, match=r"^TreeEnsembleRegressor: X must be"):
        ml_models.tree_ensemble_regressor(x, **BASE)


# -- linear models -------------------------------------------------------------------------------


@PROPERTY
@given(linear_classifier_cases())
def test_linear_classifier_matches_onnxruntime(case: LinearCase) -> None:
    """One row per class: labels by the highest score. One row for two labels: the second label
    when s > 0, columns (1 - s, s) under NONE and PROBIT, else the transform of (-s, s)
    (onnxruntime leaves (1 - s, s) untransformed under the softmaxes and writes one column under
    PROBIT: those are re-derived). onnxruntime needs intercepts: zeros stand in for none."""
    attrs = linear_classifier_attrs(case)
    got_labels, got_scores = onnxcraft_outputs(
        dsl_model("LinearClassifier", 1, attrs, case.x), case.x
    )
    filled = {**attrs, "intercepts": case.intercepts or [0.0] * case.rows}
    ort_labels, raw = oracle("LinearClassifier", filled, case.x, 1, post_transform="NONE")
    np.testing.assert_array_equal(got_labels, ort_labels)
    if case.rows == 1:
        s = raw[:, 1].astype(np.float64)
        raw = np.stack([1 - s if case.transform in ("NONE", "PROBIT") else -s, s], axis=1)
    assert_transformed(got_scores, raw, case.transform, rtol=1e-5, atol=1e-5)
    if case.transform in ("NONE", "LOGISTIC") or (case.rows > 1 and case.transform != "PROBIT"):
        _, direct = oracle("LinearClassifier", filled, case.x, 1)
        assert_matches_onnxruntime(got_scores, direct, raw, case.transform, rtol=1e-5, atol=1e-5)


@PROPERTY
@given(linear_regressor_cases())
def test_linear_regressor_matches_onnxruntime(case: RegressionCase) -> None:
    """onnxruntime skips the transforms on one target and approximates PROBIT, and has a float
    LinearRegressor only: the oracle runs the inputs (grid values, exact) as floats."""
    transform, targets = case.attrs["post_transform"], case.attrs["targets"]
    (got,) = onnxcraft_outputs(dsl_model("LinearRegressor", 1, case.attrs, case.x), case.x)
    assert got.dtype == np.float32 and got.shape == (case.x.shape[0], targets)
    as_float = case.x.astype(np.float32)
    (raw,) = oracle("LinearRegressor", case.attrs, as_float, 1, post_transform="NONE")
    assert_transformed(got, raw, transform, rtol=1e-5, atol=1e-5)
    if targets > 1 and transform != "PROBIT":
        (direct,) = oracle("LinearRegressor", case.attrs, as_float, 1)
        assert_matches_onnxruntime(got, direct, raw, transform, rtol=1e-5, atol=1e-5)


def test_linear_classifier_without_intercepts_counts_rows_from_the_features() -> None:
    x = np.array([[1.0, 2.0]], np.float32)
    labels, scores = ml_models.linear_classifier(
        x, coefficients=[1, 0, 0, 1, 1, 1], classlabels_strings=["a", "b", "c"]
    )
    assert labels.tolist() == ["c"] and scores.tolist() == [[1.0, 2.0, 3.0]]


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"coefficients": [1.0, 2.0, 3.0], "classlabels_ints": [0, 1]}, "not a multiple"),
        (
            {"coefficients": [1.0, 2.0], "intercepts": [0.0, 0.0], "classlabels_ints": [0, 1]},
            "2 class row(s) of 2 features need 4",
        ),
        (
            {"coefficients": [1.0, 2.0] * 3, "classlabels_ints": [0, 1]},
            "3 score row(s) for 2 class labels",
        ),
        (
            {"coefficients": [1.0, 2.0], "classlabels_ints": [0, 1], "post_transform": "X"},
            "post_transform",
        ),
    ],
)
def test_malformed_linear_classifier(kwargs: dict[str, Any], fragment: str) -> None:
    with pytest.raises(EvaluationError, match=r"^LinearClassifier: ") as info:
        ml_models.linear_classifier(np.zeros((1, 2), np.float32), **kwargs)
    assert fragment in str(info.value)


def test_malformed_linear_regressor() -> None:
    with pytest.raises(EvaluationError, match=r"^LinearRegressor: coefficients has 3 entries"):
        ml_models.linear_regressor(np.zeros((1, 2), np.float32), coefficients=[1, 2, 3])
    with pytest.raises(EvaluationError, match=r"^LinearRegressor: intercepts has 2 entries"):
        ml_models.linear_regressor(np.zeros((1, 1)), coefficients=[1], intercepts=[1, 2])


# -- support vector machines ---------------------------------------------------------------------


@PROPERTY
@given(svm_regressor_cases())
def test_svm_regressor_matches_onnxruntime(case: RegressionCase) -> None:
    """onnxruntime ignores post_transform here: the transform is re-derived from its scores."""
    attrs, x = case.attrs, case.x
    (got,) = onnxcraft_outputs(dsl_model("SVMRegressor", 1, attrs, x), x)
    assert got.dtype == np.float32 and got.shape == (x.shape[0], 1)
    (raw,) = oracle("SVMRegressor", attrs, x, 1, post_transform="NONE", one_class=0)
    if not attrs["one_class"]:
        assert_transformed(got, raw, attrs["post_transform"], rtol=1e-5, atol=1e-5)
        return
    (signs,) = oracle("SVMRegressor", attrs, x, 1)
    clear = np.abs(raw) > 1e-4  # the float32 and float64 scores may fall either side of 0
    np.testing.assert_array_equal(got[clear], signs[clear])
    np.testing.assert_array_equal(got[clear], np.where(raw[clear] > 0, 1.0, -1.0))


@PROPERTY
@given(svm_classifier_cases())
def test_svm_classifier_matches_onnxruntime(case: SvcCase) -> None:
    """Kernel SVMs vote one-vs-one; Z holds the pairwise scores ((-s, s) for two classes), or
    with prob_a/prob_b the coupled class probabilities. The transform is re-derived from
    onnxruntime's untransformed Z (it leaves the binary columns untransformed under the
    softmaxes and PROBIT). In the linear mode the label is the highest score (onnxruntime picks
    the second of two labels whenever a score is positive)."""
    transform = case.attrs["post_transform"]
    got_labels, got_scores = onnxcraft_outputs(
        dsl_model("SVMClassifier", 1, case.attrs, case.x), case.x
    )
    ort_labels, raw = oracle("SVMClassifier", case.attrs, case.x, 1, post_transform="NONE")
    assert got_scores.shape == raw.shape and got_scores.dtype == np.float32
    tol = 1e-4 if case.probabilities else 1e-5  # the coupling iterates in float32 there
    assert_transformed(got_scores, raw, transform, rtol=tol, atol=tol)
    if case.kernel_mode:
        if not case.probabilities:  # a vote may flip where a pairwise score is ~0
            near_zero = (np.abs(raw) < 1e-4).any(axis=1)
            np.testing.assert_array_equal(got_labels[~near_zero], ort_labels[~near_zero])
        else:
            _, plain = oracle(
                "SVMClassifier",
                {k: v for k, v in case.attrs.items() if k not in ("prob_a", "prob_b")},
                case.x,
                1,
                post_transform="NONE",
            )
            near_zero = (np.abs(plain) < 1e-4).any(axis=1)
            np.testing.assert_array_equal(got_labels[~near_zero], ort_labels[~near_zero])
    else:
        assert_same_labels(
            got_labels, np.asarray(case.labels)[np.argmax(raw, axis=1)], case.labels, raw
        )
    binary_softmax = len(case.labels) == 2 and case.kernel_mode and not case.probabilities
    if transform != "PROBIT" and not (binary_softmax and transform != "LOGISTIC"):
        _, direct = oracle("SVMClassifier", case.attrs, case.x, 1)
        assert_matches_onnxruntime(got_scores, direct, raw, transform, rtol=tol, atol=tol)


def test_svm_kernels_by_hand() -> None:
    x = np.array([[1.0, 2.0]], np.float32)
    sv = [0.0, 1.0]
    expected = {
        "LINEAR": 2.0,
        "POLY": (0.5 * 2.0 + 1.0) ** 3,
        "RBF": np.exp(-0.5 * (1.0 + 1.0)),
        "SIGMOID": np.tanh(0.5 * 2.0 + 1.0),
    }
    for name, k in expected.items():
        got = ml_models.svm_regressor(
            x,
            kernel_type=name,
            kernel_params=[0.5, 1.0, 3.0],
            n_supports=1,
            support_vectors=sv,
            coefficients=[2.0],
            rho=[0.25],
        )
        assert got.item() == pytest.approx(2.0 * k + 0.25, rel=1e-6), name
    # kernel_params may be omitted ("zero if unused"): gamma = coef0 = degree = 0
    assert ml_models.svm_regressor(x, n_supports=0, coefficients=[1, 1], rho=[0.5]).item() == 3.5


def test_svm_probabilities_by_hand() -> None:
    """Two classes: the coupled probabilities approach the Platt-scaled pair probability
    p = 1 / (1 + exp(A * s + B)) of the first class and its complement (libsvm's iteration
    stops once its residual is below 0.005 / classes, hence the tolerance)."""
    x = np.array([[0.5], [1.0], [-1.0]], np.float32)
    labels, scores = ml_models.svm_classifier(
        x,
        classlabels_ints=[3, 7],
        vectors_per_class=[1, 1],
        support_vectors=[1.0, -1.0],
        coefficients=[1.0, 0.5],
        rho=[-0.25],
        prob_a=[-2.0],
        prob_b=[0.125],
    )
    # linear kernel: s = 1.0 * (x * 1) + 0.5 * (x * -1) - 0.25
    s = 0.5 * x[:, 0].astype(np.float64) - 0.25
    p = 1 / (1 + np.exp(-2.0 * s + 0.125))
    np.testing.assert_allclose(scores, np.stack([p, 1 - p], axis=1), atol=1e-3)
    np.testing.assert_array_equal(labels, [7, 3, 7])  # the vote: the first class when s > 0


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (
            {
                "vectors_per_class": [1, 1],
                "support_vectors": [0.0],
                "coefficients": [1, 1],
                "rho": [0.0],
            },
            "support_vectors has 1 entries",
        ),
        (
            {
                "vectors_per_class": [1, 1],
                "support_vectors": [0.0, 1.0],
                "coefficients": [1],
                "rho": [0.0],
            },
            "coefficients has 1 entries",
        ),
        (
            {
                "vectors_per_class": [1, 1],
                "support_vectors": [0.0, 1.0],
                "coefficients": [1, 1],
                "rho": [0.0, 1.0],
            },
            "rho has 2 entries",
        ),
        (
            {
                "vectors_per_class": [2],
                "support_vectors": [0.0, 1.0],
                "coefficients": [1, 1],
                "rho": [0.0],
            },
            "vectors_per_class must hold",
        ),
        (
            {
                "vectors_per_class": [1, 1],
                "support_vectors": [0.0, 1.0],
                "coefficients": [1, 1],
                "rho": [0.0],
                "prob_a": [1.0],
                "prob_b": [],
            },
            "prob_a has 1 entries and prob_b 0",
        ),
        ({"coefficients": [1, 1, 1], "rho": [0.0]}, "one row of 1 weights per class"),
        ({"coefficients": [1, 1], "rho": [0.0, 1.0]}, "rho holds the one offset"),
        ({"coefficients": [1, 1], "rho": [0.0], "kernel_type": "CUBIC"}, "kernel_type"),
        ({"coefficients": [1, 1], "rho": [0.0], "kernel_params": [1.0]}, "kernel_params"),
    ],
)
def test_malformed_svm_classifier(kwargs: dict[str, Any], fragment: str) -> None:
    with pytest.raises(EvaluationError, match=r"^SVMClassifier: ") as info:
        ml_models.svm_classifier(np.zeros((1, 1), np.float32), classlabels_ints=[0, 1], **kwargs)
    assert fragment in str(info.value)


def test_malformed_svm_regressor() -> None:
    x = np.zeros((1, 2), np.float32)
    with pytest.raises(EvaluationError, match=r"^SVMRegressor: .*one weight per feature"):
        ml_models.svm_regressor(x, coefficients=[1.0], rho=[0.0])
    with pytest.raises(EvaluationError, match=r"^SVMRegressor: .*post_transform must be NONE"):
        ml_models.svm_regressor(
            x, coefficients=[1.0, 1.0], rho=[0.0], one_class=1, post_transform="LOGISTIC"
        )
    with pytest.raises(EvaluationError, match=r"^SVMRegressor: .*one per support vector"):
        ml_models.svm_regressor(
            x, n_supports=1, support_vectors=[0, 0], coefficients=[1, 1], rho=[0.0]
        )
