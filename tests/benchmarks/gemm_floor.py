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
"""

from __future__ import annotations

import argparse
import sys
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
        "| GEMMs / onnxruntime |"
    )
    print("|---|---|---|---|---|---|")
    for name in args.models.split(","):
        for batch in (int(b) for b in args.batches.split(",")):
            model = zoo.MODELS[name](batch)
            feeds = zoo.feeds_for(model)
            products = conv_products(model, feeds)
            session = fair.ort_session(model.SerializeToString(), args.threads)
            runs = {
                "gemm": gemm_runner(products),
                "onnxruntime": lambda session=session, feeds=feeds: session.run(None, feeds),
            }
            times = fair.race(runs, args.repeat)
            print(
                f"| {name} | {batch} | {len(products)} | {fair.ms(times['gemm'])} | "
                f"{fair.ms(times['onnxruntime'])} | "
                f"{fair.format_ratio(times['gemm'], times['onnxruntime'])} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
