"""Draw a model's graph as a self-contained HTML page (pan, zoom, search, details) or an SVG.

onnxcraft draw model.onnx -o graph.html
onnxcraft draw model.onnx -o graph.svg
"""

from __future__ import annotations

import argparse

from onnxcraft.cli.models import add_model_argument, load_model
from onnxcraft.draw.api import draw

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument(
        "-o", "--output", metavar="OUT", required=True, help="the picture: a .html or .svg file"
    )


def run(args: argparse.Namespace) -> int:
    draw(load_model(args.model), args.output)
    print(f"{args.output}: written")
    return 0
