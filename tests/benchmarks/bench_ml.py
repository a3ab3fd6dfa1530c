"""ai.onnx.ml model benchmark: tree ensembles and an RBF SVM on 10,000 x 20 float rows, run by
onnxcraft, onnxruntime (one thread) and onnx.reference in the same process, with the ratios.

    python tests/benchmarks/bench_ml.py [--rows 10000] [--repeat 5] [--reference-rows 200]
                                        [--threads 1] [--skip-reference]

Models: TreeEnsembleRegressor and TreeEnsembleClassifier (3 classes, every leaf votes for each)
of 100 complete trees of depth 10, the same regressor as TreeEnsemble-5, and an SVMClassifier
with an RBF kernel (3 classes, 100 support vectors each). onnxcraft's time includes reading the
attributes, as every run does. onnx.reference walks one row at a time: it is timed on
``--reference-rows`` rows and scaled to ``--rows``. Every contender is warmed up, then they run in
turn (fair.py); median (best) milliseconds, one thread each (numpy's BLAS too).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair

import onnxcraft as oc
from onnxcraft.opset.ai.onnx.ml import v3 as ml3
from onnxcraft.opset.ai.onnx.ml import v5 as ml5
from tests.evaluate._ml_models_cases import complete_forest

FEATURES, TREES, DEPTH, CLASSES = 20, 100, 10, 3


def tree_regressor(rng: np.random.Generator) -> Any:
    x = oc.arg("X", np.float32, ("N", FEATURES))
    attrs = complete_forest(
        rng, trees=TREES, depth=DEPTH, n_features=FEATURES, n_outputs=1, prefix="target"
    )
    y = ml3.TreeEnsembleRegressor(x, n_targets=1, aggregate_function="AVERAGE", **attrs)
    return oc.build(inputs=[x], outputs={"Y": y})


def tree_classifier(rng: np.random.Generator) -> Any:
    x = oc.arg("X", np.float32, ("N", FEATURES))
    attrs = complete_forest(
        rng,
        trees=TREES,
        depth=DEPTH,
        n_features=FEATURES,
        n_outputs=CLASSES,
        prefix="class",
        votes_per_leaf=CLASSES,
    )
    out = ml3.TreeEnsembleClassifier(x, classlabels_int64s=list(range(CLASSES)), **attrs)
    return oc.build(inputs=[x], outputs={"label": out.Y, "scores": out.Z})


def tree_ensemble(rng: np.random.Generator) -> Any:
    """Complete trees in TreeEnsemble-5's layout: interior nodes, then leaves, per tree."""
    interior, leaves = 2**DEPTH - 1, 2**DEPTH
    k = np.arange(interior)
    offsets = np.arange(TREES)[:, None]

    def child(index: np.ndarray) -> tuple[list[int], list[int]]:
        is_leaf = index >= interior
        position = np.where(
            is_leaf, offsets * leaves + index - interior, offsets * interior + index
        )
        return position.reshape(-1).tolist(), np.broadcast_to(is_leaf, position.shape).reshape(
            -1
        ).astype(int).tolist()

    true_ids, true_leafs = child(2 * k + 1)
    false_ids, false_leafs = child(2 * k + 2)
    x = oc.arg("X", np.float32, ("N", FEATURES))
    y = ml5.TreeEnsemble(
        x,
        n_targets=1,
        tree_roots=(np.arange(TREES) * interior).tolist(),
        nodes_modes=np.zeros(TREES * interior, np.uint8),
        nodes_featureids=rng.integers(0, FEATURES, TREES * interior).tolist(),
        nodes_splits=rng.standard_normal(TREES * interior).astype(np.float32),
        nodes_truenodeids=true_ids,
        nodes_trueleafs=true_leafs,
        nodes_falsenodeids=false_ids,
        nodes_falseleafs=false_leafs,
        leaf_targetids=[0] * (TREES * leaves),
        leaf_weights=rng.standard_normal(TREES * leaves).astype(np.float32),
    )
    return oc.build(inputs=[x], outputs={"Y": y})


def rbf_svm(rng: np.random.Generator) -> Any:
    per_class = 100
    total = per_class * CLASSES
    x = oc.arg("X", np.float32, ("N", FEATURES))
    out = ml3.SVMClassifier(
        x,
        classlabels_ints=list(range(CLASSES)),
        kernel_type="RBF",
        kernel_params=[0.05, 0.0, 0.0],
        vectors_per_class=[per_class] * CLASSES,
        support_vectors=rng.standard_normal(total * FEATURES).tolist(),
        coefficients=rng.standard_normal((CLASSES - 1) * total).tolist(),
        rho=rng.standard_normal(CLASSES * (CLASSES - 1) // 2).tolist(),
    )
    return oc.build(inputs=[x], outputs={"label": out.Y, "scores": out.Z})


def _reference_run(model: Any, part: dict[str, np.ndarray]) -> Callable[[], Any]:
    import onnx
    from onnx.reference import ReferenceEvaluator

    reference = ReferenceEvaluator(onnx.load_from_string(model.SerializeToString()))
    return lambda: reference.run(None, part)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=fair.MIN_REPEAT)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--reference-rows", type=int, default=200)
    parser.add_argument("--skip-reference", action="store_true")
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(args.threads), ["onnxruntime", "onnx"]))
    rng = np.random.default_rng(0)
    feeds = {"X": rng.standard_normal((args.rows, FEATURES)).astype(np.float32)}
    part = {"X": feeds["X"][: args.reference_rows]}
    scale = args.rows / args.reference_rows
    print(
        "| model | onnxcraft ms | onnxruntime ms | ratio vs ort | "
        f"onnx.reference ms (scaled from {args.reference_rows} rows) | reference / onnxcraft |"
    )
    print("|---|---|---|---|---|---|")
    makers = (
        ("TreeEnsembleRegressor", tree_regressor),
        ("TreeEnsembleClassifier", tree_classifier),
        ("TreeEnsemble-5", tree_ensemble),
        ("SVMClassifier RBF", rbf_svm),
    )
    for name, make in makers:
        model = make(rng)
        evaluator = oc.Evaluator(model)
        runs: dict[str, Callable[[], Any]] = {"onnxcraft": lambda e=evaluator: e.run(feeds)}
        with contextlib.suppress(ImportError):
            session = fair.ort_session(model.SerializeToString(), args.threads)
            runs["onnxruntime"] = lambda s=session: s.run(None, feeds)
            expected = session.run(None, feeds)
            got = list(evaluator.run(feeds).values())
            np.testing.assert_allclose(got[-1], expected[-1], rtol=1e-4, atol=1e-4)
        if not args.skip_reference:
            with contextlib.suppress(ImportError):  # onnx not installed
                runs["onnx.reference"] = _reference_run(model, part)
        times = fair.race(runs, args.repeat)
        ours, ort_time = times["onnxcraft"], times.get("onnxruntime")
        reference = times.get("onnx.reference")
        if reference is not None:
            reference = fair.Timing([t * scale for t in reference.runs])
        print(
            f"| {name} | {fair.ms(ours)} | {fair.ms(ort_time)} | "
            f"{fair.format_ratio(ours, ort_time)} | {fair.ms(reference)} | "
            f"{fair.format_ratio(reference, ours)} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
