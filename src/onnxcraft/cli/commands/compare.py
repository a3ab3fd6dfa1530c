"""Run a model two ways and report, for every value, the largest absolute, relative and ULP
error, and the first node whose output differs while its inputs agree.

--against: float64 (default: the model widened to double, which shows how much of an error is
float32 rounding), onnxruntime (when installed), OTHER.onnx (a second model; values matched by
name) or DIR (expected values: NAME.npy / NAME.pb / output_<i>.pb files).
Exit status 1 when an output differs beyond tolerance.

    onnxcraft compare model.onnx --random
    onnxcraft compare model.onnx --against onnxruntime --input X=x.npy --json
    onnxcraft compare converted.onnx --against before.onnx --random --rtol 1e-3
"""

from __future__ import annotations

import argparse

from onnxcraft.cli.feeds import add_feed_arguments, feeds_from_arguments
from onnxcraft.cli.limits import add_limit_arguments, limits_from_arguments
from onnxcraft.cli.models import add_json_argument, add_model_argument, load_model, print_json
from onnxcraft.cli.progress import Progress
from onnxcraft.compare.runs import compare

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument(
        "--against",
        default="float64",
        metavar="REFERENCE",
        help="float64 (default), onnxruntime, OTHER.onnx or a folder of expected values",
    )
    add_feed_arguments(parser)
    parser.add_argument("--rtol", type=float, help="relative tolerance for every value")
    parser.add_argument("--atol", type=float, help="absolute tolerance for every value")
    parser.add_argument(
        "--rows",
        type=int,
        metavar="N",
        help="list at most N values (the outputs and the first differing ones)",
    )
    add_limit_arguments(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    limits = limits_from_arguments(args)
    model = load_model(args.model)
    feeds = feeds_from_arguments(model, args)
    with Progress() as progress:
        progress.stage(f"comparing {args.model} against {args.against}")
        report = compare(
            model,
            feeds,
            args.against,
            rtol=args.rtol,
            atol=args.atol,
            limits=limits,
            cancel=progress if progress.enabled else None,
        )
    report.model = args.model
    if args.json:
        print_json(report.to_dict())
    else:
        print(report.table(rows=args.rows))
    return 0 if report.agrees else 1
