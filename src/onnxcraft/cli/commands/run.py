"""Evaluate a model with onnxcraft's evaluator and print a summary of its outputs; with -o,
write each output to DIR (NAME.npy, or NAME.pb for sequences, maps and with --format pb).

Inputs come from files (--input NAME=FILE.npy|.pb) or, for those not given, from --random.

    onnxcraft run model.onnx --input X=x.npy -o out/
    onnxcraft run model.onnx --random --seed 1 --dim N=8 --timeout 60
    onnxcraft run model.onnx --random --no-fuse    # every node as written, for exact checks
"""

from __future__ import annotations

import argparse
import time

from onnxcraft.cli.feeds import add_feed_arguments, feeds_from_arguments
from onnxcraft.cli.limits import add_limit_arguments, limits_from_arguments
from onnxcraft.cli.models import add_json_argument, add_model_argument, load_model, print_json
from onnxcraft.cli.outputs import describe, write_values
from onnxcraft.cli.progress import Progress
from onnxcraft.evaluate.evaluator import Evaluator

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    add_feed_arguments(parser)
    parser.add_argument("-o", "--output", metavar="DIR", help="write the outputs to this folder")
    parser.add_argument(
        "--format", choices=("npy", "pb"), default="npy", help="file format of -o (default npy)"
    )
    parser.add_argument(
        "--no-fuse",
        action="store_true",
        help="run every node as written: no BatchNormalization folded into a Conv, no "
        "prepared convolutions (their rounding differs in the last places)",
    )
    add_limit_arguments(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    limits = limits_from_arguments(args)
    model = load_model(args.model)
    feeds = feeds_from_arguments(model, args)
    with Progress() as progress:
        progress.stage(f"preparing {args.model}")
        evaluator = Evaluator(model, limits=limits, fuse=not args.no_fuse)
        progress.stage(f"running {args.model}")
        started = time.perf_counter()
        outputs = evaluator.run(feeds, cancel=progress if progress.enabled else None)
        seconds = time.perf_counter() - started
    written = write_values(outputs, args.output, args.format) if args.output else []
    if args.json:
        print_json(
            {
                "model": args.model,
                "seconds": round(seconds, 6),
                "outputs": {name: describe(value) for name, value in outputs.items()},
                "written": [str(p) for p in written],
            }
        )
        return 0
    width = max((len(name) for name in outputs), default=0)
    for name, value in outputs.items():
        print(f"{name.ljust(width)}  {describe(value)}")
    for path in written:
        print(f"wrote {path}")
    return 0
