"""Run a converted model with onnxcraft's evaluator and with onnxruntime, and compare it with
scikit-learn: the helpers every gallery test shares.

Every model is also checked converted to older opsets (``oc.convert_version``): ai.onnx 13,
and for ai.onnx.ml the lowest opset in which every ml operator the converter uses exists
(ai.onnx.ml 1 for TreeEnsembleClassifier/Regressor, ZipMap, OneHotEncoder); likewise ai.onnx
goes to 13 or, when an operator is newer (StringSplit of TfidfVectorizer, new in 20), to the
opset that introduced it. TreeEnsemble is new in ai.onnx.ml 5 and has no older form, so the
models using it are checked at ml 5 and ai.onnx 13 only (``KEPT_OPSETS`` records why).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, Literal

import numpy as np
import onnx.defs
import onnxruntime as ort
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import onnxcraft as oc

BACKENDS = ("onnxcraft", "onnxruntime")


AI_ONNX_TARGET = 13
ML = "ai.onnx.ml"


@cache
def _first_versions() -> dict[tuple[str, str], int]:
    """{(domain, operator): the opset that introduced it}, from onnx's schemas (an oracle)."""
    first: dict[tuple[str, str], int] = {}
    for schema in onnx.defs.get_all_schemas_with_history():
        key = (schema.domain, schema.name)
        first[key] = min(first.get(key, schema.since_version), schema.since_version)
    return first


def older_targets(model: Any) -> dict[str, int]:
    """The older opsets ``model`` is checked at, per domain it imports: the lowest opset in
    which all its operators of that domain exist (for ai.onnx, no lower than 13)."""
    own = {opset.domain or "": opset.version for opset in model.opset_import}
    targets: dict[str, int] = {}
    for domain, version in own.items():
        used = {node.op_type for node in model.graph.node if (node.domain or "") == domain}
        floor = AI_ONNX_TARGET if domain == "" else 1
        lowest = max([floor, *(_first_versions()[(domain, op)] for op in used)])
        if lowest < version:
            targets[domain] = lowest
        else:  # e.g. TreeEnsemble, new in ml 5: checked at its own opset only
            KEPT_OPSETS[(model.graph.name, domain or "ai.onnx")] = (
                f"stays at {version}: {sorted(used)} have no older version"
            )
    return targets


# (graph name, domain) -> why that domain's opset was not lowered (written down, not silent).
KEPT_OPSETS: dict[tuple[str, str], str] = {}


class _Runner:
    """One model on both backends."""

    def __init__(self, model: Any) -> None:
        oc.check(model, full_check=True)
        self.evaluator = oc.Evaluator(model)
        # The oracle reads the serialized bytes, as a deployment would.
        self.session = ort.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        self.names = [output.name for output in self.session.get_outputs()]

    def run(self, feeds: dict[str, np.ndarray]) -> dict[str, dict[str, Any]]:
        return {
            "onnxcraft": self.evaluator.run(feeds),
            "onnxruntime": dict(zip(self.names, self.session.run(None, feeds))),
        }


class Backends:
    """A converted model, checked, then prepared for both backends once; and the same model
    converted to older opsets (:func:`older_targets`), checked and prepared once too."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.current = _Runner(model)
        self.names = self.current.names
        self.targets = older_targets(model)
        assert self.targets, f"{model.graph.name}: no older opset to convert to"
        self.older = oc.convert_version(model, self.targets)
        imported = {opset.domain or "": opset.version for opset in self.older.opset_import}
        assert all(imported[d] == v for d, v in self.targets.items()), imported
        self.converted = _Runner(self.older)

    def run(self, feeds: dict[str, np.ndarray]) -> dict[str, dict[str, Any]]:
        """{backend: {output: value}} of the model as built; the model converted to older
        opsets must give the same outputs on each backend (checked here)."""
        results = self.current.run(feeds)
        for backend, outputs in self.converted.run(feeds).items():
            for name, value in outputs.items():
                assert_same(value, results[backend][name], f"{backend} at {self.targets}: {name}")
        return results


def assert_same(got: Any, expected: Any, what: str) -> None:
    """Equal values: arrays element for element (NaN equal to NaN), ZipMap's lists of maps."""
    if isinstance(expected, list):
        assert got == expected, what
    else:
        np.testing.assert_array_equal(got, expected, err_msg=what)


def float_rows(
    n_features: int,
    *,
    special: Sequence[float] | np.ndarray = (),
    bound: float = 4.0,
    max_rows: int = 8,
    dtype: type[np.floating[Any]] = np.float32,
) -> st.SearchStrategy[np.ndarray]:
    """(rows, n_features) arrays within ±bound, mixing in ``special`` values (thresholds'
    float32 neighbours, bin edges) so that boundaries are hit, not only approached."""
    width: Literal[32, 64] = 32 if dtype == np.float32 else 64
    elements: st.SearchStrategy[float] = st.floats(-bound, bound, width=width)
    if len(special):
        elements = st.one_of(elements, st.sampled_from([float(v) for v in special]))
    return st.integers(1, max_rows).flatmap(
        lambda rows: hnp.arrays(dtype, (rows, n_features), elements=elements)
    )


def assert_labels(
    got: np.ndarray,
    expected: np.ndarray,
    scores: np.ndarray,
    classes: np.ndarray,
    *,
    margin: float,
    larger_is_better: bool = True,
) -> None:
    """Labels equal scikit-learn's wherever its best score leads the runner-up by more than
    ``margin``; within ``margin`` (a near tie that rounding may decide either way) the label
    must be one of the near-tied classes."""
    got = np.asarray(got)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    oriented = scores if larger_is_better else -scores
    best = oriented.max(axis=1, keepdims=True)
    near = oriented >= best - margin
    clear = near.sum(axis=1) == 1
    np.testing.assert_array_equal(got[clear], expected[clear])
    for row in np.flatnonzero(~clear):
        assert got[row] in set(classes[near[row]].tolist()), (row, got[row], scores[row])


def map_rows(maps: list[dict[Any, float]], classes: np.ndarray) -> np.ndarray:
    """ZipMap's sequence of maps as an (N, classes) array in the order of ``classes``."""
    assert all(set(m) == set(classes.tolist()) for m in maps)
    return np.array([[m[c] for c in classes.tolist()] for m in maps], np.float64)
