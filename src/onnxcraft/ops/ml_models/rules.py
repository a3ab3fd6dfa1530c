"""Rules for the ai.onnx.ml models: tree ensembles, linear and SVM classifiers and regressors.

The rows of every output come from X (``[N, F]``; a 1-D X is one sample), the columns from the
attributes: targets, class labels, or for SVMClassifier without probabilities the one-vs-one
pairs. Labels are int64 or strings, as the class label attribute that is set.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of, type_string
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]

_ML = "ai.onnx.ml"
_FLOAT = ElementType.FLOAT


def _given(value: Any) -> bool:
    return value is not None and np.asarray(value).size > 0


def _rows(ctx: InferenceContext) -> Dim:
    """N of X ``[N, F]``; 1 for a 1-D X."""
    shape = ctx.shape(0)
    if shape is None:
        return None
    if len(shape) == 1:
        return 1
    if len(shape) != 2:
        raise ctx.fail(f"X must be 2-D [N, F] (or 1-D [F]: one sample), got rank {len(shape)}")
    return shape[0]


def _labels(ctx: InferenceContext, ints_name: str) -> tuple[ElementType, int]:
    """The label element type and the number of classes; exactly one label list is set."""
    ints, strings = ctx.attr(ints_name), ctx.attr("classlabels_strings")
    if _given(ints) == _given(strings):
        which = "both" if _given(ints) else "neither"
        raise ctx.fail(
            f"exactly one of {ints_name} and classlabels_strings must be given, got {which}"
        )
    if _given(strings):
        return ElementType.STRING, len(strings)
    return ElementType.INT64, len(ints)


def _optional_count(ctx: InferenceContext, name: str) -> int | None:
    value = ctx.attr(name)
    return None if value is None else int(value)


def _classified(ctx: InferenceContext, label: ElementType, columns: Dim) -> list[ValueType | None]:
    rows = _rows(ctx)
    return [Tensor(label, (rows,)), Tensor(_FLOAT, (rows, columns))]


def _tree_regressor(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(_FLOAT, (_rows(ctx), _optional_count(ctx, "n_targets")))]


def _tree_classifier(ctx: InferenceContext) -> list[ValueType | None]:
    label, classes = _labels(ctx, "classlabels_int64s")
    return _classified(ctx, label, classes)


def _check_tensor_types(
    ctx: InferenceContext, elem: ElementType | None, names: Sequence[str]
) -> None:
    """TreeEnsemble's split, weight and member tensors share the element type of X."""
    if elem is None:
        return
    for name in names:
        value = ctx.attr(name)
        if value is None:
            continue
        found = element_type_of(np.asarray(value).dtype)
        if found != elem:
            raise ctx.fail(
                f"attribute {name} must have the element type of X ({type_string(elem)}), "
                f"got {type_string(found)}"
            )


def _tree_ensemble(ctx: InferenceContext) -> list[ValueType | None]:
    elem = ctx.elem(0)
    _check_tensor_types(ctx, elem, ("nodes_splits", "leaf_weights", "membership_values"))
    modes = ctx.attr("nodes_modes")
    if modes is not None and np.asarray(modes).dtype != np.uint8:
        # The spec types the modes uint8; onnx's checker and onnxruntime refuse other types,
        # and a Python list of modes becomes int64 unless it is given as a uint8 array.
        found = type_string(element_type_of(np.asarray(modes).dtype))
        raise ctx.fail(
            f"attribute nodes_modes must be a uint8 tensor, got {found}: "
            "pass np.array(modes, np.uint8)"
        )
    return [Tensor(elem, (_rows(ctx), _optional_count(ctx, "n_targets")))]


def _linear_regressor(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(_FLOAT, (_rows(ctx), int(ctx.attr("targets", 1))))]


def _linear_classifier(ctx: InferenceContext) -> list[ValueType | None]:
    label, classes = _labels(ctx, "classlabels_ints")
    intercepts = ctx.attr("intercepts")
    if _given(intercepts):  # one score row per intercept: one per class, or one for two
        rows = len(intercepts)
        if rows != classes and not (rows == 1 and classes == 2):
            raise ctx.fail(
                f"{rows} intercepts for {classes} class labels; expected one per label, or "
                f"one for two labels"
            )
    # Z has a column per class, the binary case with one score row included.
    return _classified(ctx, label, classes)


def _svm_regressor(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(_FLOAT, (_rows(ctx), 1))]


def _svm_score_columns(ctx: InferenceContext, classes: int) -> int:
    """Probabilities and the linear mode give a column per class; raw one-vs-one scores give
    one per pair of classes, two for a binary model."""
    counts = ctx.attr("vectors_per_class")
    kernel_mode = _given(counts) and sum(int(c) for c in counts) > 0
    if not kernel_mode or _given(ctx.attr("prob_a")):
        return classes
    return 2 if classes == 2 else classes * (classes - 1) // 2


def _svm_classifier(ctx: InferenceContext) -> list[ValueType | None]:
    label, classes = _labels(ctx, "classlabels_ints")
    return _classified(ctx, label, _svm_score_columns(ctx, classes))


def register(rules: RuleRegistry) -> None:
    rules.add("TreeEnsemble", _tree_ensemble, since=ALL_VERSIONS, domain=_ML)
    rules.add("TreeEnsembleRegressor", _tree_regressor, since=ALL_VERSIONS, domain=_ML)
    rules.add("TreeEnsembleClassifier", _tree_classifier, since=ALL_VERSIONS, domain=_ML)
    rules.add("LinearRegressor", _linear_regressor, since=ALL_VERSIONS, domain=_ML)
    rules.add("LinearClassifier", _linear_classifier, since=ALL_VERSIONS, domain=_ML)
    rules.add("SVMRegressor", _svm_regressor, since=ALL_VERSIONS, domain=_ML)
    rules.add("SVMClassifier", _svm_classifier, since=ALL_VERSIONS, domain=_ML)
