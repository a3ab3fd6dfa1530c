"""Before / after in one process: the zoo's CNNs evaluated without and with the prepared
convolutions (``ops/conv/prepared.py``), and by onnxruntime, one thread each (BLAS too).

    python tests/benchmarks/bench_prepared_conv.py [--models resnet50,shufflenet]
                                                   [--batches 1,8] [--repeat 7]

"without" is ``oc.Evaluator(model)`` with that one rewrite of ``evaluate/fusion.py`` left
out (BatchNormalization folding and in-place Relu stay), so the two differ by the prepared
convolutions alone. The three contenders alternate round by round (fair.py): on a machine
shared with other work, compare the ratios of one run rather than two runs' times. The last
column is the CPU-time ratio of "with" to onnxruntime.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import numpy as np
import zoo

import onnxcraft as oc
from onnxcraft.evaluate import fusion


def without_prepared_convolutions(model: Any) -> oc.Evaluator:
    rewrite = fusion._prepare_convolutions
    fusion._prepare_convolutions = lambda steps, *_: steps  # type: ignore[assignment]
    try:
        return oc.Evaluator(model)
    finally:
        fusion._prepare_convolutions = rewrite  # type: ignore[assignment]


def cpu_recorded(fn: Callable[[], Any], store: list[float]) -> Callable[[], Any]:
    def run() -> Any:
        start = time.process_time()
        result = fn()
        store.append(time.process_time() - start)
        return result

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(zoo.CNNS))
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(1), ["onnxruntime"]))
    print(
        "| model | batch | without ms | with ms | onnxruntime ms | without / ort "
        "| with / ort | with / ort, CPU | max rel. diff with |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        for batch in (int(b) for b in args.batches.split(",")):
            model = zoo.MODELS[name](batch)
            feeds = zoo.feeds_for(model)
            before, after = without_prepared_convolutions(model), oc.Evaluator(model)
            session = fair.ort_session(model.SerializeToString(), 1)
            output = model.graph.output[0].name
            expected = session.run(None, feeds)[0]
            got = after.run(feeds)[output]
            difference = np.abs(got - expected).max() / np.abs(expected).max()
            cpu: dict[str, list[float]] = {"with": [], "ort": []}
            times = fair.race(
                {
                    "without": lambda b=before: b.run(feeds),
                    "with": cpu_recorded(lambda a=after: a.run(feeds), cpu["with"]),
                    "ort": cpu_recorded(lambda s=session: s.run(None, feeds), cpu["ort"]),
                },
                args.repeat,
            )
            ort = times["ort"]
            cpu_ratio = statistics.median(cpu["with"][1:]) / statistics.median(cpu["ort"][1:])
            print(
                f"| {name} | {batch} | {fair.ms(times['without'])} | {fair.ms(times['with'])} "
                f"| {fair.ms(ort)} | {fair.format_ratio(times['without'], ort)} "
                f"| {fair.format_ratio(times['with'], ort)} | {cpu_ratio:.2f}x "
                f"| {difference:.1e} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
