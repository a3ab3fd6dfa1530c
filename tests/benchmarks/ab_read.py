"""Before/after of the inference reader alone, in one process: ``read_with_bodies`` of the
working tree against the same function at an earlier git revision, each given the parsed
message and the model's bytes (as ``oc.infer_shapes`` gives them), alternated call by call.

    python tests/benchmarks/ab_read.py --before REV [--models squeezenet,...] [--calls 2000]

The revision is imported as ``ab_infer.py`` does (``onnxcraft_before``). Each side's table of
shared value types is emptied before its call, outside its time (the reader makes the
initializers' types: a first call makes each anew). The table gives the tenth percentile and
the median CPU time (``time.process_time``) of the calls, after / before.
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

from onnxcraft.proto import ModelProto


def _side(package: str) -> tuple[Any, Any, int]:
    reader = importlib.import_module(package + ".proto.inference")
    shared = importlib.import_module(package + ".types")._SHARED_TENSORS
    limit = importlib.import_module(package + ".ops.infer_api").VALUE_LIMIT
    return reader, shared, limit


def _read_time(side: tuple[Any, Any, int], proto: Any, data: bytes) -> float:
    reader, shared, limit = side
    shared.clear()
    start = time.process_time()
    read = reader.read_with_bodies(proto, values_up_to=limit, data=data)
    elapsed = time.process_time() - start
    del read
    return elapsed


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[int(len(ordered) * q)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a git revision")
    parser.add_argument("--models", default="squeezenet,shufflenet,resnet50")
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        ab_infer.load_revision(args.before, Path(folder))
        sides = {"before": _side(ab_infer.PACKAGE), "after": _side("onnxcraft")}
        print(f"# before: {args.before}; reader only, p10 / median CPU µs of {args.calls} calls")
        print("| model | before µs | after µs | after / before |")
        print("|---|---|---|---|")
        gc.disable()
        for name in args.models.split(","):
            model = (
                bench_infer.chain(int(name[len("chain") :]))
                if name.startswith("chain")
                else zoo.MODELS[name](1)
            )
            data = bench_infer.strip(model, external=True)
            proto = ModelProto.FromString(data)
            times: dict[str, list[float]] = {"before": [], "after": []}
            for call in range(args.calls):
                order = ("before", "after") if call % 2 == 0 else ("after", "before")
                for label in order:
                    times[label].append(_read_time(sides[label], proto, data))
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
        gc.enable()


if __name__ == "__main__":
    main()
