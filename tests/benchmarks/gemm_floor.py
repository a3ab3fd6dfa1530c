"""How far numpy's BLAS alone lets an evaluator go: each model's convolutions as bare GEMMs.

    python tests/benchmarks/gemm_floor.py [--models squeezenet,inception] [--batches 1,8]
                                          [--repeat 5] [--threads 1]

Every Conv of a zoo model is turned into the matrix product an im2col convolution does,
per group: (C_out/g) x (C_in/g * kh * kw) times (C_in/g * kh * kw) x (N * H_out * W_out),
with its operands made once, contiguous, and the product written into an array made once
(``np.matmul(..., out=...)``; the groups of a grouped or depthwise convolution as one
batched call). Nothing else runs: no copies into im2col, no bias, no Relu, no pooling. The
sum is a floor for any numpy evaluator that convolves by matrix products (Winograd's
fewer products aside), timed alternated with onnxruntime's whole run of the same model
(warmed up, one thread each, numpy's BLAS included; median and best of ``--repeat``).
A floor near or above 1.5x onnxruntime's time says the rest of the gap is the GEMM's.

The im2col's products are not the ones the evaluator makes: its prepared convolutions
multiply in layouts of their own (Winograd's fewer products, the taps layout's wide ones,
banded depthwise products), whose shapes OpenBLAS runs at other speeds. So the table also
times the evaluator's whole run (``fuse=True``) with every ``np.matmul`` it calls counted
(the products as run, their operands where the run leaves them: in cache or not), leaving
out the Winograd transforms' products with 6x6 and 4x6 matrices (a depth of 8 or less):
"products as run" is what the run spends in OpenBLAS on its convolutions, and the rest of
its time is what numpy does around them. Both are set against onnxruntime's whole run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import zoo

import onnxcraft as oc


def conv_products(model: Any, feeds: dict[str, np.ndarray]) -> list[tuple[int, int, int, int]]:
    """(groups, rows, depth, columns) of every Conv's products, from one evaluation that
    keeps every intermediate value (their shapes)."""
    values = oc.Evaluator(model, fuse=False).run(feeds, intermediates=True)
    constants = {t.name: t for t in model.graph.initializer}
    products = []
    for node in model.graph.node:
        if node.op_type != "Conv":
            continue
        weight = constants[node.input[1]]
        c_out, c_in_per_group, *kernel = weight.dims
        groups = next((a.i for a in node.attribute if a.name == "group"), 1)
        y = values[node.output[0]]
        columns = y.shape[0] * int(np.prod(y.shape[2:]))
        depth = c_in_per_group * int(np.prod(kernel))
        products.append((groups, c_out // groups, depth, columns))
    return products


def gemm_runner(products: list[tuple[int, int, int, int]]) -> Any:
    """A function doing every product once, on operands made here."""
    rng = np.random.default_rng(0)
    operands = []
    for groups, rows, depth, columns in products:
        a = rng.standard_normal((groups, rows, depth)).astype(np.float32)
        b = rng.standard_normal((groups, depth, columns)).astype(np.float32)
        out = np.empty((groups, rows, columns), np.float32)
        if groups == 1:
            a, b, out = a[0], b[0], out[0]
        operands.append((a, b, out))

    def run() -> None:
        for a, b, out in operands:
            np.matmul(a, b, out=out)

    return run


_MATMUL = np.matmul
_TRANSFORM_DEPTH = 8  # Winograd's transforms multiply by 6x6 and 4x6 matrices


class CountedProducts:
    """``np.matmul`` that adds the time of each product deeper than a transform to ``spent``
    (installed only while the evaluator runs)."""

    def __init__(self) -> None:
        self.spent: list[float] = []

    def __call__(self, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        result = _MATMUL(a, b, *args, **kwargs)
        if np.shape(a)[-1] > _TRANSFORM_DEPTH:
            self.spent[-1] += time.perf_counter() - start
        return result


def counted_run(evaluator: Any, feeds: dict[str, np.ndarray], products: CountedProducts) -> Any:
    """A function running ``evaluator`` once with its products counted in a new entry of
    ``products.spent``."""

    def run() -> None:
        products.spent.append(0.0)
        np.matmul = products  # type: ignore[assignment]
        try:
            evaluator.run(feeds)
        finally:
            np.matmul = _MATMUL

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50,densenet121,inception,squeezenet,shufflenet")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--repeat", type=int, default=fair.MIN_REPEAT)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(args.threads), ["onnxruntime"]))
    print(
        "| model | batch | convolutions | GEMMs alone ms | onnxruntime ms (whole run) "
        "| GEMMs / onnxruntime | onnxcraft ms (whole run) | its products as run ms "
        "| products as run / onnxruntime | onnxcraft / onnxruntime |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        for batch in (int(b) for b in args.batches.split(",")):
            model = zoo.MODELS[name](batch)
            feeds = zoo.feeds_for(model)
            products = conv_products(model, feeds)
            session = fair.ort_session(model.SerializeToString(), args.threads)
            counted = CountedProducts()
            runs = {
                "gemm": gemm_runner(products),
                "onnxruntime": lambda session=session, feeds=feeds: session.run(None, feeds),
                "onnxcraft": counted_run(oc.Evaluator(model), feeds, counted),
            }
            times = fair.race(runs, args.repeat)
            as_run = fair.Timing(counted.spent[1:])  # (the warm-up's left out)
            ort = times["onnxruntime"]
            print(
                f"| {name} | {batch} | {len(products)} | {fair.ms(times['gemm'])} | "
                f"{fair.ms(ort)} | {fair.format_ratio(times['gemm'], ort)} | "
                f"{fair.ms(times['onnxcraft'])} | {fair.ms(as_run)} | "
                f"{fair.format_ratio(as_run, ort)} | "
                f"{fair.format_ratio(times['onnxcraft'], ort)} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
