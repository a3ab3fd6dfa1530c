"""Before/after, in one process: the evaluator's non-convolution changes of issue 17 undone
and redone, run after run, on the models of ``zoo.py``.

    python tests/benchmarks/ab_evaluate_steps.py [--models resnet50,densenet121] [--batches 1,8]
                                                 [--repeat 7]

"before" runs with the changes undone in place: pooling through the strided
``im2col.separable_reduce``, Relu through numpy's maximum with a scalar zero, no in-place
Add/Sub/Mul, no shared Concat buffers and no BatchNormalization factors computed ahead (its
evaluator is prepared with those three rewrites switched off). Kernel rewrites that cannot
be switched off in place (erf's gathering, Softmax and LayerNormalization in place) are in
both.
"after" is the code as it is. The two alternate round by round (fair.py), one thread, numpy's
BLAS pinned; the table gives median (best) milliseconds and after / before, in wall time
and in CPU time of the process (which a busy machine disturbs less).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import numpy as np
from bench_evaluate import before_after_table

import onnxcraft as oc
from onnxcraft.evaluate import fusion
from onnxcraft.ops.activation import kernels as activation
from onnxcraft.ops.im2col import separable_reduce
from onnxcraft.ops.pool import kernels as pool


def _scalar_clamp(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    return np.asarray(np.maximum(x, np.zeros((), x.dtype), out=out))


@contextmanager
def undone() -> Iterator[None]:
    saved = (pool.window_reduce, activation.at_least_zero, fusion.at_least_zero)
    pool.window_reduce = separable_reduce  # type: ignore[assignment]
    activation.at_least_zero = _scalar_clamp  # type: ignore[assignment]
    fusion.at_least_zero = _scalar_clamp  # type: ignore[assignment]
    try:
        yield
    finally:
        pool.window_reduce, activation.at_least_zero, fusion.at_least_zero = saved


def before_evaluator(model: Any) -> oc.Evaluator:
    saved = fusion._elementwise_in_place, fusion.share_concat_buffers, fusion._affine_batch_norms
    fusion._elementwise_in_place = lambda steps, kept: steps  # type: ignore[assignment]
    fusion.share_concat_buffers = lambda steps, kept, library: steps  # type: ignore[assignment]
    fusion._affine_batch_norms = lambda steps, constants, inputs: steps  # type: ignore[assignment]
    try:
        return oc.Evaluator(model)
    finally:
        (
            fusion._elementwise_in_place,
            fusion.share_concat_buffers,
            fusion._affine_batch_norms,
        ) = saved  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50,densenet121,inception,squeezenet,shufflenet")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(1)))
    before_after_table(args.models, args.batches, args.repeat, before_evaluator, undone)


if __name__ == "__main__":
    main()
