"""List every problem of a model: the ONNX IR rules and each node against its operator's spec.

Exit status 1 when there is any problem, 0 when the model is valid.

    onnxcraft check model.onnx
    onnxcraft check model.onnx --json
"""

from __future__ import annotations

import argparse

from onnxcraft.cli.models import add_json_argument, add_model_argument, load_model, print_json
from onnxcraft.core.check import check_ir

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    problems = check_ir(load_model(args.model))
    if args.json:
        print_json({"model": args.model, "valid": not problems, "problems": problems})
    elif problems:
        count = len(problems)
        print(f"{args.model}: {count} problem{'s' if count != 1 else ''}")
        for problem in problems:
            print(f"  - {problem}")
    else:
        print(f"{args.model}: valid")
    return 1 if problems else 0
