"""Before/after, in one process: the convolution changes of issue 17 (``ops/conv/``) undone
and redone, run after run, on the models of ``zoo.py``.

    python tests/benchmarks/ab_conv.py [--models shufflenet,squeezenet] [--batches 1,8]
                                       [--repeat 7]

"before" runs with the changes undone in place: depthwise convolutions in the flat (stride 1)
or im2col layout instead of the banded products of ``ops/conv/depthwise.py``; strided
convolutions with large kernels (the 7x7 stems) in the flat layout instead of the phases
layout (``ops/conv/phases.py``). "after" is the
code as it is. The two alternate round by round (fair.py), one thread, numpy's BLAS pinned;
the table gives median (best) milliseconds and after / before, in wall time and in CPU time.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
from bench_evaluate import before_after_table

import onnxcraft as oc
from onnxcraft.ops.conv import prepared
from onnxcraft.ops.im2col import WindowGeometry

_choose_layout = prepared.choose_layout


def _choose_layout_before(
    geom: WindowGeometry, channels: int, out_channels: int, group: int
) -> str:
    name = _choose_layout(geom, channels, out_channels, group)
    if name == "depthwise":
        return "flat" if geom.strides == (1, 1) else "im2col"
    return "flat" if name == "phases" else name


@contextmanager
def undone() -> Iterator[None]:
    prepared.choose_layout = _choose_layout_before  # type: ignore[assignment]
    try:
        yield
    finally:
        prepared.choose_layout = _choose_layout  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="shufflenet,squeezenet,inception,densenet121,resnet50")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(1)))
    before_after_table(args.models, args.batches, args.repeat, oc.Evaluator, undone)


if __name__ == "__main__":
    main()
