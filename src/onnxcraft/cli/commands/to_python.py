"""Write the onnxcraft code that rebuilds a model (weights over --inline-limit elements go to
a .npz file beside it).

    onnxcraft to-python model.onnx -o build_model.py
"""

from __future__ import annotations

import argparse
from pathlib import Path

from onnxcraft.cli.models import add_model_argument, load_model
from onnxcraft.io import write_file
from onnxcraft.pycode.module import DEFAULT_INLINE_LIMIT, to_python

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument("-o", "--output", metavar="FILE.py", required=True, help="the module")
    parser.add_argument(
        "--inline-limit",
        type=int,
        default=DEFAULT_INLINE_LIMIT,
        help=f"tensors up to this many elements are literals (default {DEFAULT_INLINE_LIMIT})",
    )
    parser.add_argument(
        "--keep-names", action="store_true", help="keep every value's name (.named())"
    )


def run(args: argparse.Namespace) -> int:
    output = Path(args.output)
    weights = output.with_suffix(".npz")
    source = to_python(
        load_model(args.model),
        weights_path=weights,
        inline_limit=args.inline_limit,
        keep_names=args.keep_names,
    )
    write_file(output, source.encode("utf-8"), function="onnxcraft to-python")
    extra = f" and {weights.name}" if weights.exists() else ""
    print(f"{output}{extra}: written")
    return 0
