"""Build benchmark: a chain of N steps ``y = Add(Mul(y, c_i), d_i)``, built and serialized.

Each step has two fresh 16-element float32 constants. Prints, for N = 1k, 10k, 100k, the time
per step of onnxcraft next to spox and onnx.helper (when installed), measured in this run, and
the ratios. Run: ``python tests/benchmarks/bench_build.py [--sizes 1000,10000,100000]``.

Targets (issue 4): at most 0.1x spox's time; per-step cost growing at most 1.3x from 10k to 100k.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable

import numpy as np

WIDTH = 16


def constants(n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    return [
        (
            rng.standard_normal(WIDTH).astype(np.float32),
            rng.standard_normal(WIDTH).astype(np.float32),
        )
        for _ in range(n)
    ]


def build_onnxcraft(consts: list[tuple[np.ndarray, np.ndarray]]) -> bytes:
    import onnxcraft as oc
    from onnxcraft.opset.ai.onnx import v21 as op

    x = oc.arg("x", np.float32, (WIDTH,))
    y = x
    for c, d in consts:
        y = op.Add(op.Mul(y, c), d)
    model = oc.build([x], {"y": y})
    return model.SerializeToString()  # type: ignore[no-any-return]


def build_spox(consts: list[tuple[np.ndarray, np.ndarray]]) -> bytes:
    import spox.opset.ai.onnx.v21 as sp
    from spox import Tensor, argument, build

    x = argument(Tensor(np.float32, (WIDTH,)))
    y = x
    for c, d in consts:
        y = sp.add(sp.mul(y, sp.constant(value=c)), sp.constant(value=d))
    return build({"x": x}, {"y": y}).SerializeToString()  # type: ignore[no-any-return]


def build_onnx_helper(consts: list[tuple[np.ndarray, np.ndarray]]) -> bytes:
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []
    prev = "x"
    for i, (c, d) in enumerate(consts):
        inits.append(numpy_helper.from_array(c, f"c{i}"))
        inits.append(numpy_helper.from_array(d, f"d{i}"))
        nodes.append(helper.make_node("Mul", [prev, f"c{i}"], [f"m{i}"]))
        nodes.append(helper.make_node("Add", [f"m{i}", f"d{i}"], [f"y{i}"]))
        prev = f"y{i}"
    nodes.append(helper.make_node("Identity", [prev], ["y"]))
    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [WIDTH])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [WIDTH])],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    return model.SerializeToString()  # type: ignore[no-any-return]


def timed(fn: Callable[[list[tuple[np.ndarray, np.ndarray]]], bytes], n: int) -> float | None:
    consts = constants(n)
    gc.collect()
    start = time.perf_counter()
    try:
        fn(consts)
    except ImportError:
        return None
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument(
        "--spox-max",
        type=int,
        default=10000,
        help="largest N run with spox (it needs ~0.3-0.5 ms a step)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    timed(build_onnxcraft, 10)  # warm-up: imports and first-use caches
    print(
        f"{'N':>7} | {'onnxcraft us/step':>17} | {'spox us/step':>12} | "
        f"{'onnx.helper us/step':>19} | "
        f"{'vs spox':>7} | {'vs helper':>9}"
    )
    per_step: dict[int, float] = {}
    for n in sizes:
        ours = timed(build_onnxcraft, n)
        assert ours is not None
        spox = timed(build_spox, n) if n <= args.spox_max else None
        helper = timed(build_onnx_helper, n)
        per_step[n] = ours / n * 1e6
        row = [
            f"{n:>7}",
            f"{ours / n * 1e6:>17.1f}",
            f"{spox / n * 1e6:>12.1f}" if spox else f"{'-':>12}",
            f"{helper / n * 1e6:>19.1f}" if helper else f"{'-':>19}",
            f"{ours / spox:>7.3f}" if spox else f"{'-':>7}",
            f"{ours / helper:>9.2f}" if helper else f"{'-':>9}",
        ]
        print(" | ".join(row), flush=True)
    if 10000 in per_step and 100000 in per_step:
        print(
            f"per-step growth 10k -> 100k: "
            f"{per_step[100000] / per_step[10000]:.2f}x (target <= 1.3x)"
        )


if __name__ == "__main__":
    main()
