"""Infer the type and shape of every value of a model; print them, or write the model with
them (its value_info filled) to OUT.

Inconsistencies (a node whose inputs do not fit it, an inferred type contradicting a declared
one) are warnings on stderr; with --strict the first one is an error.

    onnxcraft infer model.onnx
    onnxcraft infer model.onnx -o typed.onnx
"""

from __future__ import annotations

import argparse
import sys
import warnings

from onnxcraft.cli.models import add_json_argument, add_model_argument, load_model, print_json
from onnxcraft.infer.model import InferenceWarning, infer_shapes
from onnxcraft.io import save

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument("-o", "--output", metavar="OUT", help="write the typed model here")
    parser.add_argument(
        "--strict", action="store_true", help="stop at the first inconsistency (an error)"
    )
    parser.add_argument(
        "--external-data",
        action="store_true",
        help="write tensors of 1 KiB or more to OUT.data beside OUT",
    )
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InferenceWarning)
        typed = infer_shapes(model, strict=args.strict)
    for warning in caught:
        print(f"onnxcraft: warning: {warning.message}", file=sys.stderr)
    graph = typed.graph
    types = {
        **{v.name: v.type for v in graph.value_info},
        **{v.name: v.type for v in graph.outputs},
    }
    if args.output:
        save(typed, args.output, external_data=args.external_data)
    if args.json:
        print_json(
            {
                "model": args.model,
                "types": {name: str(kind or "?") for name, kind in types.items()},
                "warnings": [str(w.message) for w in caught],
                "written": args.output,
            }
        )
        return 0
    if args.output:
        print(f"{args.output}: {len(types)} values typed, {len(caught)} warnings")
        return 0
    width = max((len(name) for name in types), default=0)
    for name, kind in types.items():
        print(f"{name.ljust(width)}  {kind or '?'}")
    return 0
