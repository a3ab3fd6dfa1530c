"""The older opsets every gallery model is also checked at (tests/converters/backends.py):
lowered as far as the converter's operators exist, and kept, with the reason written down,
where they do not exist earlier."""

from __future__ import annotations

from examples.converters import trees
from examples.converters.tfidf import convert_tfidf
from tests.converters.backends import KEPT_OPSETS, Backends, older_targets
from tests.converters.test_tfidf import vectorizer
from tests.converters.test_trees import estimator


def test_classic_tree_ensembles_go_down_to_ml_1_and_ai_onnx_13() -> None:
    model = trees.convert_tree_classifier(estimator("tree_classifier"), use_zipmap=True)
    assert older_targets(model) == {"": 13, "ai.onnx.ml": 1}


def test_tree_ensemble_of_ml_5_stays_at_ml_5_and_says_why() -> None:
    model = trees.convert_tree_regressor_v5(estimator("tree_regressor"))
    assert older_targets(model) == {"": 13}
    assert "TreeEnsemble" in KEPT_OPSETS[(model.graph.name, "ai.onnx.ml")]
    older = Backends(model).older
    opsets = {opset.domain: opset.version for opset in older.opset_import}
    assert opsets == {"": 13, "ai.onnx.ml": 5}


def test_string_split_keeps_tfidf_at_ai_onnx_20() -> None:
    model = convert_tfidf(vectorizer((1, 2)))
    assert older_targets(model) == {"": 20}
