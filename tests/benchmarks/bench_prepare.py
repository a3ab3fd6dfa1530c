"""Preparation benchmark: ``oc.Evaluator(model)`` next to onnxruntime's ``InferenceSession``
creation (one thread), on chains of Identity nodes given as the model's bytes.

    python tests/benchmarks/bench_prepare.py [--sizes 10000,100000] [--repeat 5]

Both contenders start from the same bytes, so both parse them. Each gets a warm-up run; then
the contenders alternate, ``--repeat`` runs each, and the median and the best are printed.
onnxcraft's preparation is also timed from the IR model alone (the bytes parsed beforehand),
which is what ``Evaluator`` costs for a model built with the DSL (``oc.build_ir``).
Target (issue 16): linear in the number of nodes, about onnxruntime's time at 100k nodes.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext, suppress
from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.io import model_ir
from onnxcraft.opset.ai.onnx import v21 as op


def identity_chain(nodes: int) -> bytes:
    x = oc.arg("x", np.float32, (1,))
    y = x
    for _ in range(nodes):
        y = op.Identity(y)
    return oc.build([x], {"y": y}).SerializeToString()  # type: ignore[no-any-return]


def blas_pinned() -> AbstractContextManager[Any]:
    """One BLAS thread when threadpoolctl is installed (preparation does no BLAS work, but a
    pinned pool keeps the machine quiet)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return nullcontext()
    return threadpool_limits(limits=1)  # type: ignore[no-any-return]


def ort_session(data: bytes) -> Callable[[], Any]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return lambda: ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def race(contenders: dict[str, Callable[[], Any]], repeat: int) -> dict[str, list[float]]:
    """Warm up each contender, then run them in turn ``repeat`` times; seconds per run."""
    for fn in contenders.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, fn in contenders.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'nodes':>7} {'contender':<32} {'median s':>9} {'best s':>8} {'us/node':>8}")
    with blas_pinned():
        for nodes in (int(s) for s in args.sizes.split(",")):
            data = identity_chain(nodes)
            parsed = model_ir(data)
            contenders: dict[str, Callable[[], Any]] = {
                "oc.Evaluator(bytes)": lambda d=data: oc.Evaluator(d),
                "oc.Evaluator(IR model)": lambda m=parsed: oc.Evaluator(m),
            }
            with suppress(ImportError):
                contenders["onnxruntime InferenceSession"] = ort_session(data)
            for name, runs in race(contenders, args.repeat).items():
                median, best = statistics.median(runs), min(runs)
                print(
                    f"{nodes:>7} {name:<32} {median:>9.3f} {best:>8.3f} "
                    f"{median / nodes * 1e6:>8.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
