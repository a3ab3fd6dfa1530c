"""Before/after, in one process: DenseNet's BatchNormalization -> Relu -> Conv as one clamp
and a Conv with scaled weights (``evaluate.norm_relu_conv``) and the transitions' AveragePool
run before their 1x1 Conv (``evaluate.pool_before_conv``), switched off and on.

    python tests/benchmarks/ab_dense.py [--models densenet121] [--batches 1,8] [--repeat 7]

"before" is an evaluator prepared with the two rewrites switched off, "after" the code as it
is; they alternate round by round (fair.py), one thread, numpy's BLAS pinned. The outputs
differ by float rounding (the rewrites round differently), so the table's last column says
"outputs differ".
"""

from __future__ import annotations

import argparse
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
from bench_evaluate import before_after_table

import onnxcraft as oc
from onnxcraft.evaluate import fusion


def before_evaluator(model: Any) -> oc.Evaluator:
    saved = fusion.clamp_into_conv, fusion.pool_before_conv
    fusion.clamp_into_conv = lambda steps, *rest: steps  # type: ignore[assignment]
    fusion.pool_before_conv = lambda steps, *rest: steps  # type: ignore[assignment]
    try:
        return oc.Evaluator(model)
    finally:
        fusion.clamp_into_conv, fusion.pool_before_conv = saved  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="densenet121")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(1)))
    before_after_table(args.models, args.batches, args.repeat, before_evaluator, nullcontext)


if __name__ == "__main__":
    main()
