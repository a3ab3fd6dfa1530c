"""Reading the model a command names, and writing what it prints."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from onnxcraft import ir
from onnxcraft.io import load_ir

__all__ = ["add_json_argument", "add_model_argument", "load_model", "print_json"]


def add_model_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="an ONNX model file (.onnx)")


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def load_model(path: str) -> ir.Model:
    """The model in ``path``, its external data memory-mapped (read only where used)."""
    return load_ir(path)


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")
