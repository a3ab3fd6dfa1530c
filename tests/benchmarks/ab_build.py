"""Before/after, in one process: the chain of ``bench_build.py`` built and serialized by the
working tree and by an earlier git revision (and by onnx.helper's code, for the ratio),
alternated round by round.

    python tests/benchmarks/ab_build.py --before REV [--sizes 1000,10000] [--rounds 15]

The revision's ``src/onnxcraft`` is loaded as ``onnxcraft_before`` (``ab_infer.load_revision``).
Both sides must write the same bytes. Each round times every contender once, the order
rotating, in CPU time (``time.process_time``); the table gives µs a step, median (best) over
rounds, after / before and after / onnx.helper (ratios of the medians, of the bests).
"""

from __future__ import annotations

import argparse
import gc
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
    args = parser.parse_args()
    import importlib

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


if __name__ == "__main__":
    main()
