"""Before/after, in one process: MaxPool's innermost stride 2 and the channel-shuffle rewrite
(issue 17), undone and redone run after run on the models of ``zoo.py``.

    python tests/benchmarks/ab_pool_shuffle.py [--models inception,shufflenet] [--batches 1,8]
                                               [--repeat 7] [--before REV] [--pools]

"before" runs the pooling module of git revision ``--before`` (default: the commit before the
pooling change, loaded from its file) and an evaluator prepared without the channel-shuffle
rewrite; "after" is the code as it is. The two alternate round by round (fair.py), one
thread, numpy's BLAS pinned; the table gives median (best) milliseconds and after / before,
in wall time and in CPU time of the process (which a busy machine disturbs less). The
outputs of both are compared bit for bit. ``--pools`` times the MaxPool kernels of the zoo's
pooling geometries instead (CPU time, median of 11, before and after alternated).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import numpy as np
from bench_evaluate import before_after_table

import onnxcraft as oc
from onnxcraft.evaluate import fusion
from onnxcraft.ops.pool import kernels as pool

_ROOT = Path(__file__).resolve().parents[2]


def _module_at(revision: str, path: str) -> ModuleType:
    source = subprocess.run(
        ["git", "show", f"{revision}:{path}"], cwd=_ROOT, check=True, capture_output=True
    ).stdout
    with tempfile.NamedTemporaryFile("wb", suffix=".py", delete=False) as file:
        file.write(source)
    spec = importlib.util.spec_from_file_location(f"before_{Path(path).stem}", file.name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextmanager
def pooling_of(module: ModuleType) -> Iterator[None]:
    saved = pool.window_reduce
    pool.window_reduce = module.window_reduce
    try:
        yield
    finally:
        pool.window_reduce = saved


def before_evaluator(model: Any) -> oc.Evaluator:
    saved = fusion.shuffle_concats
    fusion.shuffle_concats = lambda steps, *args: steps  # type: ignore[assignment]
    try:
        return oc.Evaluator(model)
    finally:
        fusion.shuffle_concats = saved  # type: ignore[assignment]


# (input shape, stride, pads) of 3x3 MaxPools in the zoo's models
_POOLS = [
    ((1, 64, 112, 112), 2, 1),
    ((1, 192, 56, 56), 2, 1),
    ((1, 480, 28, 28), 2, 1),
    ((8, 64, 112, 112), 2, 1),
    ((1, 64, 111, 111), 2, 0),
    ((1, 192, 28, 28), 1, 1),
]


def time_pools(old_pooling: ModuleType) -> None:
    print("| MaxPool 3x3 | stride | pads | before CPU ms | after CPU ms |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for shape, stride, pad in _POOLS:
        x = rng.standard_normal(shape).astype(np.float32)
        attributes = {"kernel_shape": [3, 3], "strides": [stride] * 2, "pads": [pad] * 4}
        spent: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(12):
            for name, times in spent.items():
                start = time.process_time()
                if name == "before":
                    with pooling_of(old_pooling):
                        pool.max_pool_1(x, **attributes)
                else:
                    pool.max_pool_1(x, **attributes)
                times.append(time.process_time() - start)
        before, after = (statistics.median(spent[k][1:]) * 1e3 for k in ("before", "after"))
        print(f"| {'x'.join(map(str, shape))} | {stride} | {pad} | {before:.3f} | {after:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50,densenet121,inception,squeezenet,shufflenet")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--before", default="53e551c")
    parser.add_argument("--pools", action="store_true")
    args = parser.parse_args()
    old_pooling = _module_at(args.before, "src/onnxcraft/ops/pool/shifted.py")
    print(fair.describe_machine(fair.pin_threads(1)))
    if args.pools:
        time_pools(old_pooling)
        return
    print(f"before: pooling of {args.before}, no channel-shuffle rewrite")
    before_after_table(
        args.models, args.batches, args.repeat, before_evaluator, lambda: pooling_of(old_pooling)
    )


if __name__ == "__main__":
    main()
