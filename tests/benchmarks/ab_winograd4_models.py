"""Winograd's F(4x4, 3x3) on and off run by run inside one evaluator, on the zoo's models.

    python tests/benchmarks/ab_winograd4_models.py [--models resnet50,inception]
                                                   [--batches 1,8] [--rounds 31]

One evaluator per model and batch; after a first run every prepared convolution that took
F(4x4, 3x3) (``"winograd4"``) is switched, round by round, between it and the layout it
would have had without it (``choose_layout`` with ``_WINOGRAD4_CHANNELS`` out of reach), so
the rest of the run (allocations, caches, other steps) is the same on both sides. The
table gives CPU milliseconds of whole runs, median (best), and the median over rounds of
the ratio (steadier than a ratio of medians on a shared machine); one thread, numpy's BLAS
pinned (fair.py). A finer measure than ``ab_evaluate.py``, whose two evaluators differ in
memory layout as well.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import zoo

import onnxcraft as oc
from onnxcraft.ops.conv import prepared as module
from onnxcraft.ops.conv.prepared import PreparedConv, choose_layout


def _prepared_convs(evaluator: oc.Evaluator) -> list[PreparedConv]:
    """The plan's prepared convolutions, those writing into a Concat's output included (a
    closure around the convolution, ``evaluate/concat_targets.py``)."""
    found = []
    for step in evaluator._plan.steps:
        cells = [step.fn] + [c.cell_contents for c in getattr(step.fn, "__closure__", None) or ()]
        found += [c for c in cells if isinstance(c, PreparedConv)]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50,inception")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--rounds", type=int, default=31)
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(1)))
    print("| model | batch | convolutions | F(4x4, 3x3) ms | without ms | with / without |")
    print("|---|---|---|---|---|---|")
    for name in args.models.split(","):
        for batch in (int(b) for b in args.batches.split(",")):
            model = zoo.MODELS[name](batch)
            feeds = zoo.feeds_for(model)
            evaluator = oc.Evaluator(model)
            evaluator.run(feeds)
            switched = []  # (conv, key, layout with F(4x4, 3x3), layout without)
            saved = module._WINOGRAD4_CHANNELS
            module._WINOGRAD4_CHANNELS = 1 << 30
            for conv in _prepared_convs(evaluator):
                for key, layout in conv._layouts.items():
                    if layout.name == "winograd4":
                        other = choose_layout(layout.geom, key[0], conv.weight.shape[0], 1)
                        switched.append((conv, key, layout, type(layout)(layout.geom, other)))
            module._WINOGRAD4_CHANNELS = saved
            times: dict[bool, list[float]] = {True: [], False: []}
            for r in range(args.rounds + 1):
                for on in (True, False) if r % 2 else (False, True):
                    for conv, key, with_, without in switched:
                        conv._layouts[key] = with_ if on else without
                    start = time.process_time()
                    evaluator.run(feeds)
                    if r:  # the first round warms both up
                        times[on].append(time.process_time() - start)
            ratio = statistics.median(a / b for a, b in zip(times[True], times[False], strict=True))
            on_ms, off_ms = (
                f"{statistics.median(times[k]) * 1e3:.1f} ({min(times[k]) * 1e3:.1f})"
                for k in (True, False)
            )
            print(f"| {name} | {batch} | {len(switched)} | {on_ms} | {off_ms} | {ratio:.3f}x |")


if __name__ == "__main__":
    main()
