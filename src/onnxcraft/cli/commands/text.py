"""Print a model in the ONNX text syntax (large tensors elided unless --full), or write it.

onnxcraft text model.onnx
onnxcraft text model.onnx --full -o model.txt
"""

from __future__ import annotations

import argparse

from onnxcraft.cli.models import add_model_argument, load_model
from onnxcraft.io import write_file
from onnxcraft.text.api import to_text

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument(
        "--full", action="store_true", help="print every tensor value (default: large ones elided)"
    )
    parser.add_argument("-o", "--output", metavar="OUT", help="write the text here")


def run(args: argparse.Namespace) -> int:
    text = to_text(load_model(args.model), full_tensors=args.full)
    if args.output:
        write_file(args.output, text.encode("utf-8"), function="onnxcraft text")
        print(f"{args.output}: {len(text.splitlines())} lines")
    else:
        print(text, end="" if text.endswith("\n") else "\n")
    return 0
