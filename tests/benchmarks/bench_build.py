"""Build benchmark: a chain of N steps ``y = Add(Mul(y, c_i), d_i)``, built and serialized.

    python tests/benchmarks/bench_build.py [--sizes 1000,10000,100000] [--repeat 5]
                                           [--spox-max 10000]

Each step has two fresh 16-element float32 constants, stored as initializers by every library
(spox through its ``initializer``), and every library builds the same graph: 2 nodes a step,
the last one writing the output. onnx.helper's code names every value as onnxcraft does by
default (``mul0``, ``add0``, constants ``c0``, ``c1`` ...), so that the two graphs are the same
graph name for name (the script checks that their GraphProtos are byte for byte equal, and
names what onnxcraft's file holds beyond onnx.helper's: the producer name and version, which
``make_model`` leaves empty). onnxcraft's time includes its type inference and naming;
onnx.helper's is the hand-written proto. Every contender is warmed up, then they run in turn
(fair.py); the table gives µs a step (median, best), the ratios of the medians (of the bests) and
the sizes of the saved models in bytes. Targets (issue 17): within 2.5x of onnx.helper a step, at
most 0.1x spox's time, and a saved model no larger than onnx.helper's.
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair

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
    model = oc.build([x], {"y": y}, name="chain")
    return model.SerializeToString()  # type: ignore[no-any-return]


def build_spox(consts: list[tuple[np.ndarray, np.ndarray]]) -> bytes:
    import spox.opset.ai.onnx.v21 as sp
    from spox import Tensor, argument, build
    from spox._future import initializer

    x = argument(Tensor(np.float32, (WIDTH,)))
    y = x
    for c, d in consts:
        y = sp.add(sp.mul(y, initializer(c)), initializer(d))
    return build({"x": x}, {"y": y}).SerializeToString()  # type: ignore[no-any-return]


def build_onnx_helper(consts: list[tuple[np.ndarray, np.ndarray]]) -> bytes:
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []
    prev = "x"
    last = len(consts) - 1
    for i, (c, d) in enumerate(consts):
        inits.append(numpy_helper.from_array(c, f"c{2 * i}"))
        inits.append(numpy_helper.from_array(d, f"c{2 * i + 1}"))
        nodes.append(helper.make_node("Mul", [prev, f"c{2 * i}"], [f"mul{i}"]))
        out = "y" if i == last else f"add{i}"
        nodes.append(helper.make_node("Add", [f"mul{i}", f"c{2 * i + 1}"], [out]))
        prev = out
    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [WIDTH])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [WIDTH])],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    return model.SerializeToString()  # type: ignore[no-any-return]


BUILDERS = {"onnxcraft": build_onnxcraft, "spox": build_spox, "onnx.helper": build_onnx_helper}


def available(name: str) -> bool:
    try:
        BUILDERS[name](constants(2))
    except ImportError:
        return False
    return True


def file_difference(files: dict[str, bytes]) -> str:
    """What onnxcraft's file holds beyond onnx.helper's, checked rather than assumed.

    "same graph" when the GraphProtos are byte for byte equal; then, if clearing the producer
    fields onnxcraft records (onnx.helper's ``make_model`` leaves them empty) makes the two
    files equal, the extra bytes are named as those fields. The IR versions differ in value
    only (onnxcraft writes the oldest one its opsets allow, onnx.helper its newest; one byte
    each), so they are set alike before comparing.
    """
    if "onnx.helper" not in files:
        return "-"
    import onnx

    ours, theirs = (onnx.ModelProto.FromString(files[k]) for k in ("onnxcraft", "onnx.helper"))
    if ours.graph.SerializeToString() != theirs.graph.SerializeToString():
        return "graphs DIFFER"
    extra = len(files["onnxcraft"]) - len(files["onnx.helper"])
    ours.ClearField("producer_name")
    ours.ClearField("producer_version")
    ours.ir_version = theirs.ir_version
    if ours.SerializeToString() == files["onnx.helper"]:
        return f"same graph; +{extra} B are the producer name and version, else identical"
    return "same graph; the files differ beyond it"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=fair.MIN_REPEAT)
    parser.add_argument(
        "--spox-max",
        type=int,
        default=10000,
        help="largest N run with spox (it needs ~0.3-0.5 ms a step)",
    )
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(1), ["spox", "onnx"]))
    names = [name for name in BUILDERS if available(name)]
    print(
        "| N | onnxcraft µs/step | spox µs/step | onnx.helper µs/step | vs spox | vs helper | "
        "bytes: onnxcraft / helper |"
    )
    print("|---|---|---|---|---|---|---|")
    for n in (int(size) for size in args.sizes.split(",")):
        consts = constants(n)
        runs = {
            name: (lambda fn=BUILDERS[name]: fn(consts))
            for name in names
            if name != "spox" or n <= args.spox_max
        }
        files = {name: fn() for name, fn in runs.items()}
        sizes = {name: len(data) for name, data in files.items()}
        difference = file_difference(files)
        gc.collect()
        times = fair.race(runs, args.repeat)
        per_step = {name: fair.Timing([t / n for t in run.runs]) for name, run in times.items()}
        ours = per_step["onnxcraft"]

        def micro(name: str) -> str:
            timing = per_step.get(name)
            return "-" if timing is None else f"{timing.median * 1e6:.1f} ({timing.best * 1e6:.1f})"

        bytes_ratio = (
            f"{sizes['onnxcraft']:,} / {sizes['onnx.helper']:,} "
            f"({sizes['onnxcraft'] / sizes['onnx.helper']:.4f}; {difference})"
            if "onnx.helper" in sizes
            else "-"
        )
        print(
            f"| {n} | {micro('onnxcraft')} | {micro('spox')} | {micro('onnx.helper')} | "
            f"{fair.format_ratio(ours, per_step.get('spox'))} | "
            f"{fair.format_ratio(ours, per_step.get('onnx.helper'))} | {bytes_ratio} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
