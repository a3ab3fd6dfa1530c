"""Before/after, in one process: DenseNet's BatchNormalization -> Relu -> Conv as one clamp
and a Conv with scaled weights (``evaluate.norm_relu_conv``) and the transitions' AveragePool
run before their 1x1 Conv (``evaluate.pool_before_conv``), switched off and on.

    python tests/benchmarks/ab_dense.py [--models densenet121] [--batches 1,8] [--repeat 7]
    python tests/benchmarks/ab_dense.py --kernels [--batches 1,8] [--repeat 15]

"before" is an evaluator prepared with the two rewrites switched off, "after" the code as it
is; they alternate round by round (fair.py), one thread, numpy's BLAS pinned. The outputs
differ by float rounding (the rewrites round differently), so the table's last column says
"outputs differ".

``--kernels`` times the two passes alone on DenseNet-121's shapes, CPU time, alternated:
the BatchNormalization + Relu of every dense layer as they ran (a multiply, an add, a clamp
in place) against the one clamp, and the transitions' 2x2 AveragePool kernel against the
two strided adds of ``pool_before_conv``.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import time

import fair
import numpy as np
from bench_evaluate import before_after_table

import onnxcraft as oc
from onnxcraft.evaluate import fusion
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.evaluate.pool_before_conv import _mean_of_pairs
from onnxcraft.ops.clamp import at_least_zero

# (channels before the first layer, layers, side) of each dense block
_BLOCKS = ((64, 6, 56), (128, 12, 28), (256, 24, 14), (512, 16, 7))


def before_evaluator(model: Any) -> oc.Evaluator:
    saved = fusion.clamp_into_conv, fusion.pool_before_conv
    fusion.clamp_into_conv = lambda steps, *rest: steps  # type: ignore[assignment]
    fusion.pool_before_conv = lambda steps, *rest: steps  # type: ignore[assignment]
    try:
        return oc.Evaluator(model)
    finally:
        fusion.clamp_into_conv, fusion.pool_before_conv = saved  # type: ignore[assignment]


def _alternated(runs: dict[str, Any], repeat: int) -> dict[str, list[float]]:
    spent: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat + 1):  # the first round warms up
        for name, run in runs.items():
            start = time.process_time()
            run()
            spent[name].append(time.process_time() - start)
    return {name: times[1:] for name, times in spent.items()}


def _row(label: str, spent: dict[str, list[float]]) -> str:
    before, after = (np.array(spent[k]) * 1e3 for k in ("before", "after"))
    return (
        f"| {label} | {np.median(before):.2f} ({before.min():.2f}) "
        f"| {np.median(after):.2f} ({after.min():.2f}) "
        f"| {np.median(after) / np.median(before):.2f}x |"
    )


def kernels(batches: str, repeat: int) -> None:
    rng = np.random.default_rng(0)
    average = default_registry().lookup("", "AveragePool", 19)
    assert average is not None
    pairs = _mean_of_pairs(average.fn, has_context=False)
    print("| pass | before CPU ms | after CPU ms | after / before |")
    print("|---|---|---|---|")
    for batch in (int(b) for b in batches.split(",")):
        layers = []
        for first, count, side in _BLOCKS:
            for channels in range(first, first + 32 * count, 32):
                x = rng.standard_normal((batch, channels, side, side)).astype(np.float32)
                shape = (1, channels, 1, 1)
                factor = rng.uniform(0.5, 1.5, shape).astype(np.float32)
                layers.append((x, factor, rng.uniform(-0.1, 0.1, shape).astype(np.float32)))

        def written(layers: list[Any] = layers) -> None:
            for x, factor, offset in layers:
                y = np.multiply(x, factor)
                y += offset
                at_least_zero(y, out=y)

        def clamp(layers: list[Any] = layers) -> None:
            for x, _, offset in layers:
                np.maximum(x, offset)

        spent = _alternated({"before": written, "after": clamp}, repeat)
        print(_row(f"58 layers' BatchNormalization + Relu, batch {batch}", spent), flush=True)
        for channels, side in ((256, 56), (512, 28), (1024, 14)):
            x = rng.standard_normal((batch, channels, side, side)).astype(np.float32)
            window = {"kernel_shape": (2, 2), "strides": (2, 2)}
            runs = {
                "before": lambda x=x: average.fn(x, **window),
                "after": lambda x=x: pairs(x, **window),
            }
            label = f"AveragePool 2x2 stride 2, {batch}x{channels}x{side}x{side}"
            print(_row(label, _alternated(runs, repeat)), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="densenet121")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--kernels", action="store_true", help="the two passes alone")
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(1)))
    if args.kernels:
        kernels(args.batches, args.repeat)
        return
    before_after_table(args.models, args.batches, args.repeat, before_evaluator, nullcontext)


if __name__ == "__main__":
    main()
