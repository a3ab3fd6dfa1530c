"""A Conv fused with the MaxPool after it (``onnxcraft/evaluate/conv_pool.py``), on and off in one
process: SqueezeNet's stem.

    python tests/benchmarks/ab_conv_pool.py [--batches 1,8] [--rounds 41]

Two evaluators of the zoo's SqueezeNet 1.1, one prepared without the rewrite, run alternated
round by round, one thread, numpy's BLAS pinned (fair.py). Printed per batch: CPU ms of whole
runs and of the stem (the fused step against the Conv and MaxPool steps it replaces, each
step timed), median (best), and the median over rounds of the after / before ratio (steadier
than a ratio of medians on a shared machine).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import zoo

import onnxcraft as oc
from onnxcraft.evaluate import fusion


def _stem_timed(evaluator: oc.Evaluator, output: str) -> list[float]:
    """Time the steps up to the one making ``output`` into one counter."""
    spent = [0.0]
    steps = evaluator._plan.steps
    last = next(i for i, s in enumerate(steps) if output in s.outputs)
    steps[: last + 1] = [
        replace(s, fn=fair.cpu_counted(s.fn, spent)) if s.fn else s for s in steps[: last + 1]
    ]
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--rounds", type=int, default=41)
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(1)))
    print(
        "| batch | before ms | after ms | after / before | stem before | stem after | stem ratio |"
    )
    print("|---|---|---|---|---|---|---|")
    for batch in (int(b) for b in args.batches.split(",")):
        model = zoo.MODELS["squeezenet"](batch)
        feeds = zoo.feeds_for(model)
        after = oc.Evaluator(model)
        saved = fusion.pool_into_conv
        fusion.pool_into_conv = lambda steps, *rest: steps  # type: ignore[assignment]
        try:
            before = oc.Evaluator(model)
        finally:
            fusion.pool_into_conv = saved  # type: ignore[assignment]
        pool = next(s for s in before._plan.steps if s.node.op_type == "MaxPool")
        stems = {"before": _stem_timed(before, pool.outputs[0])}
        stems["after"] = _stem_timed(after, pool.outputs[0])
        runs = {"before": before, "after": after}
        whole: dict[str, list[float]] = {"before": [], "after": []}
        stem: dict[str, list[float]] = {"before": [], "after": []}
        for name, evaluator in runs.items():
            evaluator.run(feeds)  # warm-up
        for round_ in range(args.rounds):
            for name in ("before", "after") if round_ % 2 else ("after", "before"):
                stems[name][0] = 0.0
                start = time.process_time()
                runs[name].run(feeds)
                whole[name].append((time.process_time() - start) * 1e3)
                stem[name].append(stems[name][0] * 1e3)

        def cell(values: list[float]) -> str:
            return f"{statistics.median(values):.2f} ({min(values):.2f})"

        def ratio(times: dict[str, list[float]]) -> str:
            pairs = zip(times["after"], times["before"])
            return f"{statistics.median(a / b for a, b in pairs if b > 0):.3f}x"

        print(
            f"| {batch} | {cell(whole['before'])} | {cell(whole['after'])} | {ratio(whole)} "
            f"| {cell(stem['before'])} | {cell(stem['after'])} | {ratio(stem)} |"
        )


if __name__ == "__main__":
    main()
