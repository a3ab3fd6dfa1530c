"""Before/after of the whole evaluator, in one process: a git revision against the code as it is.

    python tests/benchmarks/ab_evaluate.py --before REV [--models squeezenet,resnet50]
                                           [--batches 1,8] [--repeat 7]

"before" is the package ``onnxcraft`` as of ``REV``, imported as ``onnxcraft_before``
(``ab_infer.load_revision``); "after" is the working tree. Both prepare the same ModelProto
and run alternated, round by round, one thread, numpy's BLAS pinned (fair.py); the table
gives median (best) milliseconds and after / before, in wall and in CPU time, and says when
the outputs differ in any bit (a rewrite that rounds differently, on purpose or not). Why
it exists: a ratio to onnxruntime depends on the machine as much as on the code; this
compares code with code on whatever machine it runs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import zoo
from ab_infer import load_revision
from bench_evaluate import before_after_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a git revision")
    parser.add_argument("--models", default=",".join(m for m in zoo.MODELS if m != "transformer"))
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(1)))
    with tempfile.TemporaryDirectory() as folder:
        before = load_revision(args.before, Path(folder))
        print(f"# before: {args.before}")
        before_after_table(args.models, args.batches, args.repeat, before.Evaluator, nullcontext)


if __name__ == "__main__":
    main()
