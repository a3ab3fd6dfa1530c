"""One rewrite of the evaluator's plan on and off, in one process, on the zoo's models.

    python tests/benchmarks/ab_rewrites.py --off stack_sibling_convs [--models inception]
                                           [--batches 1,8] [--rounds 31] [--steps Conv,Concat]

Two evaluators per model and batch: one prepared as the code is, one prepared with the
rewrite ``--off`` (a function ``onnxcraft.evaluate.fusion`` calls while preparing, e.g.
``stack_sibling_convs``, ``pool_before_conv``, ``write_into_concats``) replaced by one that
changes nothing. They run alternated, round by round, one thread, numpy's BLAS pinned
(fair.py). The table gives CPU milliseconds, median (best), of whole runs and of the steps
of the ``--steps`` operator types alone (what the rewrite changes; the rest of a run is the
same code on both sides, and its noise is left out), each with the median over rounds of
the on / off ratio (steadier than a ratio of medians on a shared machine).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import zoo

import onnxcraft as oc
from onnxcraft.evaluate import fusion


class _StepClock:
    """CPU time spent in the steps of some operator types during one run."""

    def __init__(self) -> None:
        self.spent = 0.0

    def timed(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spent += time.process_time() - start

        return run


def _evaluator(model: Any, off: str | None, clock: _StepClock, types: set[str]) -> oc.Evaluator:
    saved = getattr(fusion, off) if off else None
    if off:
        setattr(fusion, off, lambda steps, *args, **kwargs: steps)
    try:
        evaluator = oc.Evaluator(model)
    finally:
        if off:
            setattr(fusion, off, saved)
    steps = evaluator._plan.steps
    steps[:] = [
        replace(s, fn=clock.timed(s.fn)) if s.fn and s.node.op_type in types else s for s in steps
    ]
    return evaluator


def _cell(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:.2f} ({min(values) * 1e3:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--off", required=True, help="the fusion function to switch off")
    parser.add_argument("--models", default="inception")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--steps", default="Conv,Concat")
    args = parser.parse_args()
    if not callable(getattr(fusion, args.off, None)):
        parser.error(f"onnxcraft.evaluate.fusion has no function {args.off!r}")
    types = set(args.steps.split(","))
    print(fair.describe_machine(fair.pin_threads(1)))
    print(f"# off: {args.off}; steps timed: {args.steps}")
    print(
        "| model | batch | run on ms | run off ms | on / off | steps on ms | steps off ms "
        "| on / off |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        for batch in (int(b) for b in args.batches.split(",")):
            model = zoo.MODELS[name](batch)
            feeds = zoo.feeds_for(model)
            clocks = {True: _StepClock(), False: _StepClock()}
            evaluators = {
                on: _evaluator(model, None if on else args.off, clocks[on], types)
                for on in (True, False)
            }
            runs: dict[bool, list[float]] = {True: [], False: []}
            steps: dict[bool, list[float]] = {True: [], False: []}
            for r in range(args.rounds + 1):
                for on in (True, False) if r % 2 else (False, True):
                    clocks[on].spent = 0.0
                    start = time.process_time()
                    evaluators[on].run(feeds)
                    if r:  # the first round warms both up
                        runs[on].append(time.process_time() - start)
                        steps[on].append(clocks[on].spent)

            def ratio(values: dict[bool, list[float]]) -> float:
                pairs = zip(values[True], values[False], strict=True)
                return statistics.median(a / b for a, b in pairs)

            print(
                f"| {name} | {batch} | {_cell(runs[True])} | {_cell(runs[False])} "
                f"| {ratio(runs):.3f}x | {_cell(steps[True])} | {_cell(steps[False])} "
                f"| {ratio(steps):.3f}x |"
            )


if __name__ == "__main__":
    main()
