"""The options that bound an evaluation (``oc.Limits``), shared by ``run`` and ``compare``."""

from __future__ import annotations

import argparse

from onnxcraft.evaluate.limits import Limits

__all__ = ["add_limit_arguments", "limits_from_arguments"]


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="stop after this long")
    parser.add_argument(
        "--max-loop-iterations", type=int, metavar="N", help="Loop and Scan iterations in all"
    )
    parser.add_argument(
        "--max-value-bytes", type=int, metavar="N", help="the largest value an operator may make"
    )


def limits_from_arguments(args: argparse.Namespace) -> Limits:
    return Limits(
        max_loop_iterations=args.max_loop_iterations,
        max_value_bytes=args.max_value_bytes,
        timeout=args.timeout,
    )
