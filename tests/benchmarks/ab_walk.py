"""Before/after of the walk alone, in one process: ``oc.infer_shapes``'s graph walk of the
working tree against the same walk at an earlier git revision, each side given models its own
reader has read (not timed), alternated call by call.

    python tests/benchmarks/ab_walk.py --before REV [--models squeezenet,...] [--calls 400]

The revision is imported as ``ab_infer.py`` does (``onnxcraft_before``). The reader and the
writer are left out: the walk is the part ``infer/graph.py`` and ``infer/direct.py`` decide,
and a whole call's other two thirds only add noise to its comparison. The table gives the
tenth percentile and the median CPU time (``time.process_time``) of the calls, after / before.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ab_infer
import bench_infer
import zoo


def _side(package: str) -> tuple[Any, Any, Any, int]:
    model = importlib.import_module(package + ".infer.model")
    reader = importlib.import_module(package + ".proto.inference")
    io = importlib.import_module(package + ".io")
    limit = importlib.import_module(package + ".ops.infer_api").VALUE_LIMIT
    return model, reader, io, limit


def _walk_time(side: tuple[Any, Any, Any, int], data: bytes) -> float:
    model, reader, io, limit = side
    read = reader.read_for_inference(io.model_proto(data, what="model"), values_up_to=limit)
    gc.disable()
    start = time.process_time()
    model._infer(read[0], read[1], False, [], read[2])
    elapsed = time.process_time() - start
    gc.enable()
    return elapsed


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[int(len(ordered) * q)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a git revision")
    parser.add_argument("--models", default="squeezenet,shufflenet,inception")
    parser.add_argument("--calls", type=int, default=400)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        ab_infer.load_revision(args.before, Path(folder))
        sides = {"before": _side(ab_infer.PACKAGE), "after": _side("onnxcraft")}
        print(f"# before: {args.before}; walk only, p10 / median CPU µs of {args.calls} calls")
        print("| model | before µs | after µs | after / before |")
        print("|---|---|---|---|")
        for name in args.models.split(","):
            model = (
                bench_infer.chain(int(name[len("chain") :]))
                if name.startswith("chain")
                else zoo.MODELS[name](1)
            )
            data = bench_infer.strip(model, external=True)
            times: dict[str, list[float]] = {"before": [], "after": []}
            for side in sides.values():
                for _ in range(20):  # (warm)
                    _walk_time(side, data)
            for call in range(args.calls):
                order = ("before", "after") if call % 2 == 0 else ("after", "before")
                for label in order:
                    times[label].append(_walk_time(sides[label], data))
            b, a = times["before"], times["after"]
            b10, b50, a10, a50 = (
                _quantile(b, 0.1),
                _quantile(b, 0.5),
                _quantile(a, 0.1),
                _quantile(a, 0.5),
            )
            print(
                f"| {name} | {b10 * 1e6:.0f} / {b50 * 1e6:.0f} | {a10 * 1e6:.0f} / "
                f"{a50 * 1e6:.0f} | {a10 / b10:.3f} / {a50 / b50:.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
