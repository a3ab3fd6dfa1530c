"""One rewrite of the evaluator's plan on and off, in one process, on the zoo's models.

    python tests/benchmarks/ab_rewrites.py --off stack_sibling_convs [--models inception]
                                           [--batches 1,8] [--rounds 31]
                                           [--steps changed | --steps Conv,Concat]

Two evaluators per model and batch: one prepared as the code is, one prepared with the
rewrite ``--off`` (a function ``onnxcraft.evaluate.fusion`` calls while preparing, e.g.
``stack_sibling_convs``, ``pool_before_conv``, ``write_into_concats``) replaced by one that
changes nothing. They run alternated, round by round, one thread, numpy's BLAS pinned
(fair.py). The table gives CPU milliseconds, median (best), of whole runs and of some steps
alone, each with the median over rounds of the on / off ratio (steadier than a ratio of
medians on a shared machine). The steps timed: by default those the rewrite changed (in
either plan, the steps producing the same outputs whose functions differ in kind, closures
looked into: the rest of a run is the same code on both sides, and its noise is left
out), or those of the ``--steps`` operator types.
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


def _evaluator(model: Any, off: str | None) -> oc.Evaluator:
    saved = getattr(fusion, off) if off else None
    if off:
        setattr(fusion, off, lambda steps, *args, **kwargs: steps)
    try:
        return oc.Evaluator(model)
    finally:
        if off:
            setattr(fusion, off, saved)


def _kind(fn: Any) -> tuple[str, ...]:
    """The name of a step's function (its class for a callable object) and the classes of
    what its closure holds."""
    cells = getattr(fn, "__closure__", None) or ()
    name = getattr(fn, "__qualname__", type(fn).__name__)
    return (name, *(type(cell.cell_contents).__name__ for cell in cells))


def _changed(on: oc.Evaluator, off: oc.Evaluator) -> set[tuple[str, ...]]:
    """The outputs of the steps whose functions differ in kind between the two plans."""
    kinds = {
        plan: {tuple(s.outputs): _kind(s.fn) for s in e._plan.steps}
        for plan, e in (("on", on), ("off", off))
    }
    outputs = set(kinds["on"]) | set(kinds["off"])
    return {o for o in outputs if kinds["on"].get(o) != kinds["off"].get(o)}


def _time_steps(evaluator: oc.Evaluator, clock: _StepClock, chosen: Callable[[Any], bool]) -> None:
    steps = evaluator._plan.steps
    steps[:] = [replace(s, fn=clock.timed(s.fn)) if s.fn and chosen(s) else s for s in steps]


def _cell(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:.2f} ({min(values) * 1e3:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--off", required=True, help="the fusion function to switch off")
    parser.add_argument("--models", default="inception")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--steps", default="changed")
    args = parser.parse_args()
    if not callable(getattr(fusion, args.off, None)):
        parser.error(f"onnxcraft.evaluate.fusion has no function {args.off!r}")
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
            evaluators = {on: _evaluator(model, None if on else args.off) for on in (True, False)}
            if args.steps == "changed":
                changed = _changed(evaluators[True], evaluators[False])
                print(f"# {name}, batch {batch}: {len(changed)} steps changed")

                def chosen(step: Any) -> bool:
                    return tuple(step.outputs) in changed
            else:
                types = set(args.steps.split(","))

                def chosen(step: Any) -> bool:
                    return step.node.op_type in types

            for on, evaluator in evaluators.items():
                _time_steps(evaluator, clocks[on], chosen)
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

            def ratio(values: dict[bool, list[float]]) -> str:
                pairs = list(zip(values[True], values[False], strict=True))
                if not all(b for _, b in pairs):  # (no step timed)
                    return "-"
                return f"{statistics.median(a / b for a, b in pairs):.3f}x"

            print(
                f"| {name} | {batch} | {_cell(runs[True])} | {_cell(runs[False])} "
                f"| {ratio(runs)} | {_cell(steps[True])} | {_cell(steps[False])} "
                f"| {ratio(steps)} |"
            )


if __name__ == "__main__":
    main()
