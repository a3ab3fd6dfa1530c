"""Rules of the ai.onnx.ml models against the evaluator: on the models of the kernel tests, the
inferred types (while building with the DSL, and again with ``oc.infer_shapes``) describe the
computed outputs: element type (int64 or string labels), rows from X, columns from the
attributes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import InferenceError
from onnxcraft.opset.ai.onnx.ml import v1 as ml1
from onnxcraft.opset.ai.onnx.ml import v3 as ml3
from onnxcraft.opset.ai.onnx.ml import v5 as ml5
from onnxcraft.proto.serde import model_from_proto
from onnxcraft.types import Tensor
from tests.evaluate._ml_models_cases import (
    DSL_MODULES,
    ForestCase,
    LinearCase,
    RegressionCase,
    SvcCase,
    binary_cases,
    classifier_attrs,
    helper_model,
    linear_classifier_attrs,
    linear_classifier_cases,
    linear_regressor_cases,
    multiclass_cases,
    one_split,
    one_split_classifier,
    regressor_attrs,
    regressor_cases,
    svm_classifier_cases,
    svm_regressor_cases,
    tree_ensemble_case_attrs,
    tree_ensemble_cases,
)
from tests.infer._agreement import assert_describes, evaluate_and_check

RULES = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# X as [N, F] with a symbolic N, as [8, F] with a static one, or 1-D: a single sample.
LAYOUTS = st.sampled_from(("symbolic", "static", "one sample"))


def _input(x: np.ndarray, layout: str) -> tuple[oc.Var, np.ndarray]:
    if layout == "one sample":
        return oc.arg("X", x.dtype, (x.shape[1],)), x[0]
    rows: int | str = "N" if layout == "symbolic" else x.shape[0]
    return oc.arg("X", x.dtype, (rows, x.shape[1])), x


def _check(op: str, opset: int, attrs: dict[str, Any], x: np.ndarray, layout: str) -> None:
    var, feed = _input(x, layout)
    out = getattr(DSL_MODULES[opset], op)(var, **attrs)
    outputs = {"Y": out} if isinstance(out, oc.Var) else {"Y": out[0], "Z": out[1]}
    evaluate_and_check([var], outputs, {"X": feed})


def _check_helper_built(op: str, attrs: dict[str, Any], x: np.ndarray) -> None:
    """Version 5 of the deprecated operators (no DSL function): ``oc.infer_shapes`` on a model
    built with onnx.helper describes what ``oc.evaluate`` computes."""
    outputs = 1 if op.endswith("Regressor") else 2
    model = helper_model(op, 5, attrs, x.dtype, outputs)
    results = oc.evaluate(model, {"X": x})
    inferred = model_from_proto(oc.infer_shapes(model)).graph.outputs
    assert [info.name for info in inferred] == ["Y", "Z"][:outputs]
    for info in inferred:
        assert_describes(info.type, results[info.name], {}, info.name)


@RULES
@given(regressor_cases(), LAYOUTS)
def test_tree_ensemble_regressor(case: ForestCase, layout: str) -> None:
    if case.opset == 5:
        _check_helper_built("TreeEnsembleRegressor", regressor_attrs(case), case.x)
    else:
        _check("TreeEnsembleRegressor", case.opset, regressor_attrs(case), case.x, layout)


@RULES
@given(st.one_of(multiclass_cases(), binary_cases()), LAYOUTS)
def test_tree_ensemble_classifier(case_labels: tuple[ForestCase, list[Any]], layout: str) -> None:
    case, labels = case_labels
    attrs = classifier_attrs(case, labels)
    if case.opset == 5:
        _check_helper_built("TreeEnsembleClassifier", attrs, case.x)
    else:
        _check("TreeEnsembleClassifier", case.opset, attrs, case.x, layout)


@RULES
@given(tree_ensemble_cases(dtypes=(np.float16, np.float32, np.float64)), LAYOUTS)
def test_tree_ensemble(case: ForestCase, layout: str) -> None:
    _check("TreeEnsemble", 5, tree_ensemble_case_attrs(case, case.x.dtype), case.x, layout)


@RULES
@given(linear_classifier_cases(), LAYOUTS)
def test_linear_classifier(case: LinearCase, layout: str) -> None:
    _check("LinearClassifier", 1, linear_classifier_attrs(case), case.x, layout)


@RULES
@given(linear_regressor_cases(), LAYOUTS)
def test_linear_regressor(case: RegressionCase, layout: str) -> None:
    _check("LinearRegressor", 1, case.attrs, case.x, layout)


@RULES
@given(svm_classifier_cases(), LAYOUTS)
def test_svm_classifier(case: SvcCase, layout: str) -> None:
    _check("SVMClassifier", 1, case.attrs, case.x, layout)


@RULES
@given(svm_regressor_cases(), LAYOUTS)
def test_svm_regressor(case: RegressionCase, layout: str) -> None:
    _check("SVMRegressor", 1, case.attrs, case.x, layout)


@pytest.mark.parametrize(
    ("extra", "columns"),
    [
        ({}, 6),  # one-vs-one scores of 4 classes
        ({"prob_a": [-1.0] * 6, "prob_b": [0.0] * 6}, 4),  # class probabilities
    ],
)
def test_svm_classifier_score_columns(extra: dict[str, Any], columns: int) -> None:
    x = oc.arg("X", np.float32, ("N", 1))
    out = ml1.SVMClassifier(
        x,
        classlabels_strings=["a", "b", "c", "d"],
        vectors_per_class=[1, 1, 1, 1],
        support_vectors=[0.0, 1.0, 2.0, 3.0],
        coefficients=[1.0] * 12,
        rho=[0.0] * 6,
        **extra,
    )
    assert out.Y.type == Tensor(ElementType.STRING, ("N",))
    assert out.Z.type == Tensor(ElementType.FLOAT, ("N", columns))


def test_unknown_counts_stay_unknown() -> None:
    """Without n_targets the column count is not guessed; an X of unknown shape leaves the rows
    unknown."""
    attrs = {k: v for k, v in one_split().items() if k != "n_targets"}
    y = ml3.TreeEnsembleRegressor(oc.arg("X", np.float32, None), **attrs)
    assert y.type == Tensor(ElementType.FLOAT, (None, None))


def test_rule_errors_name_the_operator_and_attribute() -> None:
    x = oc.arg("X", np.float32, ("N", 1))
    tree = one_split_classifier()
    with pytest.raises(InferenceError, match=r"TreeEnsembleClassifier: exactly one of"):
        ml3.TreeEnsembleClassifier(x, **{**tree, "classlabels_strings": ["a", "b"]})
    with pytest.raises(InferenceError, match=r"LinearClassifier: 2 intercepts for 3 class"):
        ml1.LinearClassifier(
            x, coefficients=[1.0, 2.0], intercepts=[0.0, 0.0], classlabels_ints=[1, 2, 3]
        )
    with pytest.raises(InferenceError, match=r"X must be 2-D \[N, F\].*rank 3"):
        ml1.LinearRegressor(oc.arg("X3", np.float32, (1, 2, 3)), coefficients=[1.0])
    with pytest.raises(InferenceError, match=r"nodes_splits must have the element type of X"):
        ml5.TreeEnsemble(
            x,
            n_targets=1,
            tree_roots=[0],
            nodes_modes=np.array([0], np.uint8),
            nodes_featureids=[0],
            nodes_splits=np.array([0.5]),
            nodes_truenodeids=[0],
            nodes_trueleafs=[1],
            nodes_falsenodeids=[0],
            nodes_falseleafs=[1],
            leaf_targetids=[0],
            leaf_weights=np.array([1.0], np.float32),
        )
    # A list of modes would be stored as int64, which onnx's checker and onnxruntime refuse.
    with pytest.raises(InferenceError, match=r"nodes_modes must be a uint8 tensor, got int64"):
        ml5.TreeEnsemble(
            x,
            n_targets=1,
            tree_roots=[0],
            nodes_modes=[0],
            nodes_featureids=[0],
            nodes_splits=np.array([0.5], np.float32),
            nodes_truenodeids=[0],
            nodes_trueleafs=[1],
            nodes_falsenodeids=[0],
            nodes_falseleafs=[1],
            leaf_targetids=[0],
            leaf_weights=np.array([1.0], np.float32),
        )
