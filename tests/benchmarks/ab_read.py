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


def main() -> None:
    args = ab_infer.part_arguments(__doc__, "squeezenet,shufflenet,resnet50", 2000)
    with tempfile.TemporaryDirectory() as folder:
        ab_infer.load_revision(args.before, Path(folder))
        sides = {"before": _side(ab_infer.PACKAGE), "after": _side("onnxcraft")}
        ab_infer.print_part_header(args.before, "reader", args.calls)
        gc.disable()
        for name in args.models.split(","):
            data = bench_infer.strip(ab_infer.model_named(name), external=True)
            proto = ModelProto.FromString(data)
            runs = ab_infer.alternated(
                {
                    label: lambda side=side: _read_time(side, proto, data)
                    for label, side in sides.items()
                },
                args.calls,
            )
            print(ab_infer.quantiles_row(name, runs, unit=1e6), flush=True)
        gc.enable()


if __name__ == "__main__":
    main()
