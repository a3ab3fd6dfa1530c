"""Convert a model to another opset (older or newer), checking that every node can be written
there; a node that cannot is an error naming it and why.

    onnxcraft convert model.onnx --opset 13 -o model13.onnx
    onnxcraft convert model.onnx --opset 17 --opset ai.onnx.ml=3 -o out.onnx
"""

from __future__ import annotations

import argparse

from onnxcraft.cli.models import add_model_argument, load_model
from onnxcraft.convert.engine import convert_version
from onnxcraft.errors import CommandLineError
from onnxcraft.io import save

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument(
        "--opset",
        action="append",
        required=True,
        metavar="[DOMAIN=]VERSION",
        help="the target opset: 13 (ai.onnx) or ai.onnx.ml=3; repeatable",
    )
    parser.add_argument("-o", "--output", metavar="OUT", required=True, help="the converted model")
    parser.add_argument(
        "--external-data",
        action="store_true",
        help="write tensors of 1 KiB or more to OUT.data beside OUT",
    )


def _targets(items: list[str]) -> dict[str, int]:
    targets: dict[str, int] = {}
    for item in items:
        domain, _, version = item.rpartition("=")
        if not version.isdigit():
            raise CommandLineError(
                f"--opset {item}: expected VERSION or DOMAIN=VERSION, e.g. 13 or ai.onnx.ml=3"
            )
        targets[domain or "ai.onnx"] = int(version)
    return targets


def run(args: argparse.Namespace) -> int:
    targets = _targets(args.opset)
    converted = convert_version(load_model(args.model), targets)
    save(converted, args.output, external_data=args.external_data)
    shown = ", ".join(f"{domain} {version}" for domain, version in targets.items())
    print(f"{args.output}: converted to {shown}")
    return 0
