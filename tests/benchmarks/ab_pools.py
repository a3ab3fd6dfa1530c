"""Before/after, in one process: pooling replayed from recorded programs, and convolutions
written into their Concat's output (issue 17).

    python tests/benchmarks/ab_pools.py [--models inception,squeezenet] [--batches 1,8]
                                        [--repeat 7] [--before REV] [--kernels | --concat]

"before" runs the window reduction of git revision ``--before`` (default: the commit before
the change, loaded from its file) with the pooling geometry and AveragePool's counts worked
out at every call, as they were; "after" is the code as it is. The two alternate round by
round (fair.py), one thread, numpy's BLAS pinned; the table gives median (best) milliseconds
and after / before, in wall time and in CPU time. Outputs are compared bit for bit.
``--kernels`` times the pooling kernels on the zoo's geometries instead (CPU time, median of
15, before and after alternated). ``--concat`` compares an evaluator prepared without the
Concat rewrite (``evaluate/concat_targets.py``) with the code as it is, pooling as it is in
both. ``--all`` compares the session's start (the old pooling, no Concat rewrite) with the
code as it is. ``--paired N`` replaces the table by N rounds of one run each, before and
after in turn (the order alternating), CPU time: the median of the rounds' ratios after /
before and its quartiles, steadier than ratios of medians on a machine others are using.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import numpy as np
from ab_pool_shuffle import _module_at
from bench_evaluate import before_after_runs, before_after_table

import onnxcraft as oc
from onnxcraft.evaluate import fusion
from onnxcraft.ops.pool import kernels as pool


@contextmanager
def pooling_of(module: ModuleType) -> Iterator[None]:
    """The kernels with ``module``'s window reduction and nothing cached between calls."""
    saved = pool.window_reduce, pool._resolved_geometry, pool._valid_counts
    pool.window_reduce = module.window_reduce
    pool._resolved_geometry = saved[1].__wrapped__  # type: ignore[assignment]
    pool._valid_counts = saved[2].__wrapped__  # type: ignore[assignment]
    try:
        yield
    finally:
        pool.window_reduce, pool._resolved_geometry, pool._valid_counts = saved


# (name, kernel, input shape, attributes) of the zoo's pooling nodes, one of each
_KERNELS: list[tuple[str, Callable[..., Any], tuple[int, ...], dict[str, Any]]] = [
    ("MaxPool 3x3 s2 p1", pool._max_pool_values, (1, 64, 112, 112), {"strides": [2, 2]}),
    ("MaxPool 3x3 s2 p1", pool._max_pool_values, (1, 192, 56, 56), {"strides": [2, 2]}),
    ("MaxPool 3x3 s2 p1", pool._max_pool_values, (1, 480, 28, 28), {"strides": [2, 2]}),
    ("MaxPool 3x3 s2 p1", pool._max_pool_values, (1, 832, 14, 14), {"strides": [2, 2]}),
    ("MaxPool 3x3 s1 p1", pool._max_pool_values, (1, 256, 28, 28), {"strides": [1, 1]}),
    ("MaxPool 3x3 s1 p1", pool._max_pool_values, (1, 512, 14, 14), {"strides": [1, 1]}),
    ("MaxPool 3x3 s1 p1", pool._max_pool_values, (1, 832, 7, 7), {"strides": [1, 1]}),
    (
        "MaxPool 3x3 s2",
        pool._max_pool_values,
        (1, 64, 111, 111),
        {"strides": [2, 2], "pads": [0] * 4},
    ),
    (
        "MaxPool 3x3 s2",
        pool._max_pool_values,
        (1, 128, 55, 55),
        {"strides": [2, 2], "pads": [0] * 4},
    ),
    (
        "MaxPool 3x3 s2",
        pool._max_pool_values,
        (1, 256, 27, 27),
        {"strides": [2, 2], "pads": [0] * 4},
    ),
    (
        "AveragePool 2x2 s2",
        pool.average_pool,
        (1, 128, 56, 56),
        {"kernel_shape": [2, 2], "strides": [2, 2]},
    ),
    (
        "AveragePool 2x2 s2",
        pool.average_pool,
        (1, 256, 28, 28),
        {"kernel_shape": [2, 2], "strides": [2, 2]},
    ),
    (
        "AveragePool 2x2 s2",
        pool.average_pool,
        (1, 512, 14, 14),
        {"kernel_shape": [2, 2], "strides": [2, 2]},
    ),
    ("MaxPool 3x3 s2 p1", pool._max_pool_values, (8, 192, 56, 56), {"strides": [2, 2]}),
    ("MaxPool 3x3 s1 p1", pool._max_pool_values, (8, 512, 14, 14), {"strides": [1, 1]}),
]


def time_kernels(old: ModuleType) -> None:
    print("| kernel | input | before CPU ms | after CPU ms | after / before |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for name, kernel, shape, given in _KERNELS:
        x = rng.standard_normal(shape).astype(np.float32)
        attributes = {"kernel_shape": [3, 3], "pads": [1] * 4, **given}
        spent: dict[str, list[float]] = {"before": [], "after": []}
        results = {}
        for _ in range(16):
            for side, times in spent.items():
                start = time.process_time()
                if side == "before":
                    with pooling_of(old):
                        results[side] = kernel(x, **attributes)
                else:
                    results[side] = kernel(x, **attributes)
                times.append(time.process_time() - start)
        assert results["before"].tobytes() == results["after"].tobytes()
        before, after = (statistics.median(spent[k][1:]) * 1e3 for k in ("before", "after"))
        print(
            f"| {name} | {'x'.join(map(str, shape))} | {before:.3f} | {after:.3f} "
            f"| {after / before:.2f}x |"
        )


def without_concat_targets(model: Any) -> oc.Evaluator:
    saved = fusion.write_into_concats
    fusion.write_into_concats = lambda steps, *args: steps  # type: ignore[assignment]
    try:
        return oc.Evaluator(model)
    finally:
        fusion.write_into_concats = saved  # type: ignore[assignment]


@contextmanager
def nothing_undone() -> Iterator[None]:
    yield


def paired_table(
    models: str,
    batches: str,
    rounds: int,
    before_evaluator: Callable[[Any], Any],
    undone: Callable[[], Any],
) -> None:
    print(
        "| model | batch | before CPU ms | after CPU ms "
        "| after / before, median of rounds (quartiles) |"
    )
    print("|---|---|---|---|---|")
    for pair in before_after_runs(models, batches, before_evaluator, undone):
        assert pair.same_bits
        pair.after()
        spent: dict[str, list[float]] = {"before": [], "after": []}
        runs = {"before": pair.before, "after": pair.after}
        for round_ in range(rounds):
            for side in ("before", "after") if round_ % 2 == 0 else ("after", "before"):
                start = time.process_time()
                runs[side]()
                spent[side].append(time.process_time() - start)
        ratios = sorted(x / y for x, y in zip(spent["after"], spent["before"], strict=True))
        q1, q2, q3 = statistics.quantiles(ratios, n=4)
        before, after = (statistics.median(spent[k]) * 1e3 for k in ("before", "after"))
        print(
            f"| {pair.name} | {pair.batch} | {before:.1f} | {after:.1f} "
            f"| {q2:.3f}x ({q1:.3f}-{q3:.3f}) |",
            flush=True,
        )


def everything_before(model: Any) -> oc.Evaluator:
    return without_concat_targets(model)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="inception,squeezenet,densenet121")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--before", default="30f4ead")
    parser.add_argument("--kernels", action="store_true")
    parser.add_argument("--concat", action="store_true")
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--paired", type=int, default=0)
    args = parser.parse_args()
    old = _module_at(args.before, "src/onnxcraft/ops/pool/shifted.py")
    print(fair.describe_machine(fair.pin_threads(1)))
    if args.kernels:
        time_kernels(old)
        return
    table = before_after_table
    if args.paired:

        def table(models: str, batches: str, _: int, before: Any, undone: Any) -> None:
            paired_table(models, batches, args.paired, before, undone)

    if args.concat:
        print("before: no Concat rewrite (evaluate/concat_targets.py)")
        table(args.models, args.batches, args.repeat, without_concat_targets, nothing_undone)
        return
    if args.all:
        print(f"before: window reduction of {args.before}, nothing cached, no Concat rewrite")
        table(args.models, args.batches, args.repeat, everything_before, lambda: pooling_of(old))
        return
    print(f"before: window reduction of {args.before}, nothing cached between calls")
    table(args.models, args.batches, args.repeat, oc.Evaluator, lambda: pooling_of(old))


if __name__ == "__main__":
    main()
