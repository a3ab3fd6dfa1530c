"""What one numpy pass over an activation costs, and a 3x3 MaxPool against onnxruntime's.

    python tests/benchmarks/pass_cost.py [--repeat 7] [--threads 1]

The evaluator's work around its matrix products is made of numpy passes: each reads its
operands and writes a whole array (a Relu, a bias, a residual Add, a copy into a working
array, each tap of a pool). This times single passes over float32 arrays of the sizes the
zoo's activations have (16 K values, in the L2 cache with its operands, to 800 K, beyond
it): ``np.maximum`` of two arrays, ``np.add``, a copy, and ``np.maximum`` of two views of
every other row (a pool's rows at stride 2, where numpy's loop runs over short rows).

Then a 3x3 MaxPool (stride 1 and 2, padded by one) of activations of BN-Inception's,
SqueezeNet's and ResNet's shapes, a one-node model run by onnxcraft and by onnxruntime,
alternated, one thread each. Alone, onnxruntime pools in the channels-first layout the
model gives it; inside a CNN it runs the blocked layout it converts the convolutions'
activations to (``profile_evaluate.py --steps`` shows its pools there). The timings are
median and best of ``--repeat`` rounds of many calls, in µs per call.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op

_SIZES = (16_384, 65_536, 200_704, 802_816)  # 64 x 16 x 16 ... 64 x 112 x 112 values


def _timed(calls: dict[str, Callable[[], Any]], repeat: int) -> dict[str, tuple[float, float]]:
    """Median and best µs per call of each, alternated round by round."""
    numbers = {name: max(1, int(2e-3 / max(_once(call), 1e-7))) for name, call in calls.items()}
    spent: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            start = time.perf_counter()
            for _ in range(numbers[name]):
                call()
            spent[name].append((time.perf_counter() - start) / numbers[name] * 1e6)
    return {name: (statistics.median(v), min(v)) for name, v in spent.items()}


def _once(call: Callable[[], Any]) -> float:
    call()
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def passes(repeat: int) -> None:
    print("| values | maximum | add | copy | maximum of every other row (56 wide) |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for size in _SIZES:
        a, b = (rng.standard_normal(size).astype(np.float32) for _ in range(2))
        out = np.empty_like(a)
        rows = rng.standard_normal((2 * (size // 56), 56)).astype(np.float32)  # about `size`
        half = np.empty((size // 56, 56), np.float32)
        times = _timed(
            {
                "maximum": lambda: np.maximum(a, b, out=out),
                "add": lambda: np.add(a, b, out=out),
                "copy": lambda: np.copyto(out, a),
                "rows": lambda: np.maximum(rows[0::2], rows[1::2], out=half),
            },
            repeat,
        )
        cells = [
            f"{times[k][0]:.1f} µs ({times[k][0] * 1e3 / size:.2f} ns a value)"
            for k in ("maximum", "add", "copy")
        ]
        rows_ns = times["rows"][0] * 1e3 / half.size
        print(f"| {size:,} | {' | '.join(cells)} | {times['rows'][0]:.1f} µs ({rows_ns:.2f}) |")


def pools(repeat: int, threads: int) -> None:
    print("\n| MaxPool 3x3, padded by one | onnxcraft µs | onnxruntime µs | ratio |")
    print("|---|---|---|---|")
    rng = np.random.default_rng(1)
    for channels, size, stride in ((256, 28, 1), (480, 14, 1), (128, 56, 2), (64, 112, 2)):
        x = oc.arg("X", np.float32, (1, channels, size, size))
        pooled = op.MaxPool(x, kernel_shape=(3, 3), strides=(stride, stride), pads=(1,) * 4).Y
        model = oc.build([x], {"Y": pooled})
        feeds = {"X": rng.standard_normal((1, channels, size, size)).astype(np.float32)}
        evaluator = oc.Evaluator(model)
        session = fair.ort_session(model.SerializeToString(), threads)
        ours = evaluator.run(feeds)["Y"]
        theirs = session.run(None, feeds)[0]
        assert np.array_equal(ours, theirs)
        times = _timed(
            {"ours": lambda: evaluator.run(feeds), "theirs": lambda: session.run(None, feeds)},
            repeat,
        )
        (a, _), (b, _) = times["ours"], times["theirs"]
        shape = f"{channels} x {size}², stride {stride}"
        print(f"| {shape} | {a:.1f} | {b:.1f} | {a / b:.2f}x |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=fair.MIN_REPEAT)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(args.threads), ["onnxruntime"]))
    passes(args.repeat)
    pools(args.repeat, args.threads)


if __name__ == "__main__":
    main()
