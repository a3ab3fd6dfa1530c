"""Before/after, in one process: the chain of ``bench_build.py`` built and serialized by the
working tree and by an earlier git revision (and by onnx.helper's code, for the ratio),
alternated round by round.

    python tests/benchmarks/ab_build.py --before REV [--sizes 1000,10000] [--rounds 15]
                                        [--phases]

The revision's ``src/onnxcraft`` is loaded as ``onnxcraft_before`` (``ab_infer.load_revision``).
Both sides must write the same bytes. Each round times every contender once, the order
rotating, in CPU time (``time.process_time``); the table gives µs a step, median (best) over
rounds, after / before and after / onnx.helper (ratios of the medians, of the bests).
With ``--phases`` a second table splits each side's step into its phases: the operator calls,
``build_ir`` (walk, names, constants, IR nodes), ``model_to_proto`` and ``SerializeToString``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ab_infer
import bench_build

Consts = list[tuple[np.ndarray, np.ndarray]]


def chain_builder(package: Any, opset: Any) -> Callable[[Consts], bytes]:
    """``bench_build.build_onnxcraft`` written against ``package`` (either side)."""

    def build(consts: Consts) -> bytes:
        x = package.arg("x", np.float32, (bench_build.WIDTH,))
        y = x
        for c, d in consts:
            y = opset.Add(opset.Mul(y, c), d)
        return package.build([x], {"y": y}, name="chain").SerializeToString()  # type: ignore[no-any-return]

    return build


def phase_times(package: Any, opset: Any, consts: Consts) -> list[float]:
    """CPU seconds of each phase of one build: calls, build_ir, model_to_proto, serialize."""
    build_ir = importlib.import_module(f"{package.__name__}.core.build").build_ir
    model_to_proto = importlib.import_module(f"{package.__name__}.proto.serde").model_to_proto
    gc_paused = importlib.import_module(f"{package.__name__}.gcpause").gc_paused
    clock = time.process_time
    start = clock()
    x = package.arg("x", np.float32, (bench_build.WIDTH,))
    y = x
    for c, d in consts:
        y = opset.Add(opset.Mul(y, c), d)
    called = clock()
    with gc_paused():  # as oc.build does
        model = build_ir([x], {"y": y}, name="chain")
        built = clock()
        proto = model_to_proto(model)
        written = clock()
    proto.SerializeToString()
    return [called - start, built - called, written - built, clock() - written]


def same_file(after: bytes, before: bytes) -> bool:
    """The same bytes but for the producer name (the renamed package writes its own name)."""
    import onnx

    old = onnx.ModelProto.FromString(before)
    old.producer_name = "onnxcraft"
    return after == old.SerializeToString()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a git revision")
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--phases", action="store_true", help="also split the step in phases")
    args = parser.parse_args()
    import onnxcraft as oc
    from onnxcraft.opset.ai.onnx import v21

    with tempfile.TemporaryDirectory() as folder:
        before = ab_infer.load_revision(args.before, Path(folder))
        old_v21 = importlib.import_module(f"{ab_infer.PACKAGE}.opset.ai.onnx.v21")
        sides: dict[str, Callable[[Consts], bytes]] = {
            "before": chain_builder(before, old_v21),
            "after": chain_builder(oc, v21),
            "onnx.helper": bench_build.build_onnx_helper,
        }
        print(
            f"# before: {args.before}; µs a step, median (best) CPU time over {args.rounds} rounds"
        )
        print(
            "| N | before | after | onnx.helper | after / before | after / helper "
            "| before / helper |"
        )
        print("|---|---|---|---|---|---|---|")
        for n in (int(size) for size in args.sizes.split(",")):
            consts = bench_build.constants(n)
            assert same_file(sides["after"](consts), sides["before"](consts)), n
            names = list(sides)
            for name in names:  # warm-up
                sides[name](consts)
            runs: dict[str, list[float]] = {name: [] for name in names}
            for round_ in range(args.rounds):
                order = names[round_ % 3 :] + names[: round_ % 3]
                for name in order:
                    gc.collect()
                    start = time.process_time()
                    sides[name](consts)
                    runs[name].append((time.process_time() - start) / n * 1e6)
            med = {k: statistics.median(v) for k, v in runs.items()}
            best = {k: min(v) for k, v in runs.items()}

            def ratio(a: str, b: str) -> str:
                return f"{med[a] / med[b]:.3f} ({best[a] / best[b]:.3f})"

            print(
                f"| {n} | "
                + " | ".join(f"{med[k]:.1f} ({best[k]:.1f})" for k in names)
                + f" | {ratio('after', 'before')} | {ratio('after', 'onnx.helper')} | "
                f"{ratio('before', 'onnx.helper')} |",
                flush=True,
            )
        for n in (int(size) for size in args.sizes.split(",")) if args.phases else []:
            packages = {"before": (before, old_v21), "after": (oc, v21)}
            print_phases(n, bench_build.constants(n), packages, args.rounds)


def print_phases(n: int, consts: Consts, packages: dict[str, tuple[Any, Any]], rounds: int) -> None:
    """Each side's step split in its phases: median (best) µs a step over the rounds."""
    times: dict[str, list[list[float]]] = {side: [] for side in packages}
    for round_ in range(rounds):
        for side in list(packages)[:: 1 if round_ % 2 == 0 else -1]:
            gc.collect()
            times[side].append(phase_times(*packages[side], consts))
    print(f"\n| N = {n}, µs a step | calls | build_ir | model_to_proto | serialize |")
    print("|---|---|---|---|---|")
    for side, runs in times.items():
        cells = []
        for phase in zip(*runs, strict=True):
            per_step = [t / n * 1e6 for t in phase]
            cells.append(f"{statistics.median(per_step):.1f} ({min(per_step):.1f})")
        print(f"| {side} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
