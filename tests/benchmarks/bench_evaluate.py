"""Evaluator benchmark: the real-size models of ``zoo.py`` run by onnxcraft and onnxruntime
(and onnx.reference on request), one thread each (numpy's BLAS too), alternated, with ratios.

    python tests/benchmarks/bench_evaluate.py [--models resnet50,shufflenet] [--batches 1,8]
                                              [--repeat 5] [--threads 1] [--reference]

Every contender is warmed up, then they run in turn ``--repeat`` rounds (fair.py); the table
gives median (best) milliseconds and the ratio onnxcraft / onnxruntime of the medians (of the
bests). Each model's outputs are checked against onnxruntime's before timing: the largest
difference relative to the output's largest magnitude is printed.

The last columns give the same runs in CPU time of the process (``time.process_time``: every
thread of the process, onnxruntime's included), median (best) and the ratio of the medians.
On a machine shared with other work, wall time counts the moments the process waits for a
core, and a longer run waits more often; CPU time does not, so its ratio is the one to
compare between runs on a busy machine.

Target (issue 17): onnxcraft within 1.5x of onnxruntime on each CNN at batch 1 and 8.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import numpy as np
import zoo

import onnxcraft as oc


def contenders(
    model: Any, feeds: dict[str, np.ndarray], args: argparse.Namespace
) -> dict[str, Any]:
    evaluator = oc.Evaluator(model)
    runs: dict[str, Any] = {"onnxcraft": lambda: evaluator.run(feeds)}
    data = model.SerializeToString()
    try:
        session = fair.ort_session(data, args.threads)
        runs["onnxruntime"] = lambda: session.run(None, feeds)
    except ImportError:
        pass
    if args.reference:
        import onnx
        from onnx.reference import ReferenceEvaluator

        reference = ReferenceEvaluator(onnx.load_from_string(data))
        runs["onnx.reference"] = lambda: reference.run(None, feeds)
    return runs


def cpu_timed(runs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """The contenders, each recording the CPU seconds of every call into its list."""
    spent: dict[str, list[float]] = {name: [] for name in runs}

    def timed(fn: Any, store: list[float]) -> Any:
        def run() -> Any:
            start = time.process_time()
            result = fn()
            store.append(time.process_time() - start)
            return result

        return run

    return {name: timed(fn, spent[name]) for name, fn in runs.items()}, spent


@dataclass
class BeforeAfter:
    """One model at one batch size, ready to run as it was and as it is."""

    name: str
    batch: int
    before: Callable[[], Any]
    after: Callable[[], Any]
    same_bits: bool  # whether the two give the same outputs, bit for bit


def before_after_runs(
    models: str,
    batches: str,
    before_evaluator: Callable[[Any], Any],
    undone: Callable[[], AbstractContextManager[Any]],
) -> Iterator[BeforeAfter]:
    """Each model of ``models`` at each batch size: the evaluator ``before_evaluator``
    prepares, run with the changes ``undone()``, and ``oc.Evaluator``, both run once."""
    for name in models.split(","):
        for batch in (int(b) for b in batches.split(",")):
            model = zoo.MODELS[name](batch)
            feeds = zoo.feeds_for(model)
            old, new = before_evaluator(model), oc.Evaluator(model)

            def run_old(old: Any = old, feeds: dict[str, np.ndarray] = feeds) -> Any:
                with undone():
                    return old.run(feeds)

            def run_new(new: Any = new, feeds: dict[str, np.ndarray] = feeds) -> Any:
                return new.run(feeds)

            a, b = run_old(), run_new()
            same = all(np.asarray(a[k]).tobytes() == np.asarray(b[k]).tobytes() for k in a)
            yield BeforeAfter(name, batch, run_old, run_new, same)


def before_after_table(
    models: str,
    batches: str,
    repeat: int,
    before_evaluator: Callable[[Any], Any],
    undone: Callable[[], AbstractContextManager[Any]],
) -> None:
    """Print a before/after comparison in one process, model by model (see
    :func:`before_after_runs`): wall and CPU milliseconds alternated, their ratios, and
    whether the outputs are the same bits."""
    print(
        "| model | batch | before ms | after ms | after / before | before CPU ms "
        "| after CPU ms | CPU after / before |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for pair in before_after_runs(models, batches, before_evaluator, undone):
        timed, spent = cpu_timed({"before": pair.before, "after": pair.after})
        times = fair.race(timed, repeat)
        cpu = {k: fair.Timing(v[1:]) for k, v in spent.items()}  # without the warm-up
        print(
            f"| {pair.name} | {pair.batch} | {fair.ms(times['before'])} | "
            f"{fair.ms(times['after'])} | {fair.format_ratio(times['after'], times['before'])} "
            f"| {fair.ms(cpu['before'])} | {fair.ms(cpu['after'])} | "
            f"{fair.format_ratio(cpu['after'], cpu['before'])} |"
            f"{'' if pair.same_bits else ' (outputs differ!)'}",
            flush=True,
        )


def cpu_columns(spent: dict[str, list[float]], warmup: int) -> str:
    ours = spent["onnxcraft"][warmup:]
    theirs = spent.get("onnxruntime", [])[warmup:]
    cells = [f"{statistics.median(ours) * 1e3:.1f} ({min(ours) * 1e3:.1f})"]
    if theirs:
        cells.append(f"{statistics.median(theirs) * 1e3:.1f} ({min(theirs) * 1e3:.1f})")
        ratio = statistics.median(ours) / statistics.median(theirs)
        cells.append(f"{ratio:.2f}x ({min(ours) / min(theirs):.2f}x)")
    else:
        cells += ["-", "-"]
    return " | ".join(cells)


def relative_difference(model: Any, runs: dict[str, Any]) -> str:
    if "onnxruntime" not in runs:
        return "-"
    ours = runs["onnxcraft"]()
    theirs = runs["onnxruntime"]()
    names = [o.name for o in model.graph.output]
    scale = max(float(np.max(np.abs(t))) for t in theirs) or 1.0
    return f"{fair.same_outputs(ours, theirs, names) / scale:.1e}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(zoo.MODELS))
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--repeat", type=int, default=fair.MIN_REPEAT)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--reference", action="store_true", help="also time onnx.reference")
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(args.threads), ["onnxruntime", "onnx"]))
    print(
        f"| model | batch | nodes | onnxcraft ms | onnxruntime ms | ratio vs ort "
        f"{'| onnx.reference ms ' if args.reference else ''}| max rel. diff "
        f"| onnxcraft CPU ms | onnxruntime CPU ms | CPU ratio |"
    )
    print("|---|---|---|---|---|---|" + ("---|" if args.reference else "") + "---|---|---|---|")
    for name in args.models.split(","):
        for batch in (int(b) for b in args.batches.split(",")):
            model = zoo.MODELS[name](batch)
            feeds = zoo.feeds_for(model)
            runs = contenders(model, feeds, args)
            difference = relative_difference(model, runs)
            runs, spent = cpu_timed(runs)
            times = fair.race(runs, args.repeat)
            ours, ort_time = times["onnxcraft"], times.get("onnxruntime")
            reference = f"| {fair.ms(times.get('onnx.reference'))} " if args.reference else ""
            print(
                f"| {name} | {batch} | {len(model.graph.node)} | {fair.ms(ours)} | "
                f"{fair.ms(ort_time)} | {fair.format_ratio(ours, ort_time)} {reference}"
                f"| {difference} | {cpu_columns(spent, warmup=1)} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
