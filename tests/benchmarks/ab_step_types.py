"""Before/after per step type, in one process: a git revision against the code as it is, the
CPU time of each operator type's steps inside whole runs (convolutions by their layout).

    python tests/benchmarks/ab_step_types.py --before REV [--models shufflenet] [--batches 1,8]
                                             [--rounds 15] [--by-shape]

"before" is the package as of ``REV`` (``ab_infer.load_revision``), "after" the working tree.
Both evaluators prepare the same model; every step's kernel is wrapped in a CPU-time timer
(``time.process_time``; the wrapper's own cost lands in both sides alike), and the two run
alternated, round by round, one thread, numpy's BLAS pinned (fair.py). The table gives, per
step type, the median over rounds of the type's total per run, in milliseconds, and the ratio
of the medians. Prepared convolutions are named by the layout they chose for the step's input
(``Conv/depthwise``, ``Conv/im2col``, ...), "(whole)" is the run's own CPU time. Why it
exists: a whole run's ratio hides which steps moved; ``profile_evaluate.py`` gives one
evaluator's times, not a comparison in one process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import zoo
from ab_infer import load_revision

import onnxcraft as oc

BY_SHAPE = False  # --by-shape: prepared convolutions also by stride and input shape


def _kind(step: Any, fn: Any, args: tuple[Any, ...]) -> str:
    """The step's operator type, and a prepared convolution's layout for these inputs."""
    op_type = str(step.node.op_type)
    layout_for = getattr(fn, "_layout_for", None)
    if layout_for is None and BY_SHAPE:  # a rewrite's function around a prepared Conv
        cells = [cell.cell_contents for cell in getattr(fn, "__closure__", None) or ()]
        layout_for = next(
            (getattr(c, "_layout_for") for c in cells if hasattr(c, "_layout_for")), None
        )
    if layout_for is None or not args:
        return op_type
    layout = layout_for(args[0])
    if layout is None:
        return f"{op_type}/as written"
    if BY_SHAPE:
        return f"{op_type}/{layout.name}/s{layout.geom.strides[0]}/{args[0].shape[1:]}"
    return f"{op_type}/{layout.name}"


def _instrumented(evaluator: Any) -> dict[str, float]:
    """Wrap every step of ``evaluator``'s plan in a timer; the returned dict gathers CPU
    seconds by step type (cleared by the caller before each run)."""
    spent: dict[str, float] = defaultdict(float)
    plan = evaluator._plan

    def timed(step: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            kind = _kind(step, fn, args)  # outside the timed call
            start = time.process_time()
            result = fn(*args, **kwargs)
            spent[kind] += time.process_time() - start
            return result

        return run

    plan.steps[:] = [replace(s, fn=timed(s, s.fn)) if s.fn else s for s in plan.steps]
    return spent


def compare(before: Any, model: Any, rounds: int) -> list[tuple[str, float, float]]:
    """(step type, before ms, after ms), medians over ``rounds`` alternated runs."""
    feeds = zoo.feeds_for(model)
    evaluators = {"before": before.Evaluator(model), "after": oc.Evaluator(model)}
    spent = {side: _instrumented(e) for side, e in evaluators.items()}
    times: dict[str, dict[str, list[float]]] = {side: defaultdict(list) for side in evaluators}
    for evaluator in evaluators.values():
        evaluator.run(feeds)  # warm-up: layouts chosen, working arrays grown
    for round_ in range(rounds):
        # the side running first changes each round (an A/A comparison always running the
        # same side first read it 1-3% faster per step type)
        sides = list(evaluators.items())
        for side, evaluator in sides[::-1] if round_ % 2 else sides:
            spent[side].clear()
            start = time.process_time()
            evaluator.run(feeds)
            times[side]["(whole)"].append((time.process_time() - start) * 1e3)
            for kind, seconds in spent[side].items():
                times[side][kind].append(seconds * 1e3)
    kinds = sorted(times["after"], key=lambda k: -statistics.median(times["after"][k]))
    return [
        (
            kind,
            statistics.median(times["before"].get(kind) or [0.0]),
            statistics.median(times["after"][kind]),
        )
        for kind in kinds
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a git revision")
    parser.add_argument("--models", default="shufflenet")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--by-shape", action="store_true", help="convolutions by input shape")
    args = parser.parse_args()
    global BY_SHAPE
    BY_SHAPE = args.by_shape
    print(fair.describe_machine(fair.pin_threads(1)))
    with tempfile.TemporaryDirectory() as folder:
        before = load_revision(args.before, Path(folder))
        print(f"# before: {args.before}")
        for name in args.models.split(","):
            for batch in (int(b) for b in args.batches.split(",")):
                model = zoo.MODELS[name](batch)
                print(f"\n## {name}, batch {batch}: CPU ms, median of {args.rounds}")
                print("| step type | before ms | after ms | after / before |")
                print("|---|---|---|---|")
                for kind, was, now in compare(before, model, args.rounds):
                    ratio = f"{now / was:.2f}x" if was else "-"
                    print(f"| {kind} | {was:.2f} | {now:.2f} | {ratio} |")


if __name__ == "__main__":
    main()
