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


def main() -> None:
    args = ab_infer.part_arguments(__doc__, "squeezenet,shufflenet,inception", 400)
    with tempfile.TemporaryDirectory() as folder:
        ab_infer.load_revision(args.before, Path(folder))
        sides = {"before": _side(ab_infer.PACKAGE), "after": _side("onnxcraft")}
        ab_infer.print_part_header(args.before, "walk", args.calls)
        for name in args.models.split(","):
            data = bench_infer.strip(ab_infer.model_named(name), external=True)
            for side in sides.values():
                for _ in range(20):  # (warm)
                    _walk_time(side, data)
            runs = ab_infer.alternated(
                {label: lambda side=side: _walk_time(side, data) for label, side in sides.items()},
                args.calls,
            )
            print(ab_infer.quantiles_row(name, runs, unit=1e6), flush=True)


if __name__ == "__main__":
    main()
