"""The inputs of ``run`` and ``compare``: ``--input NAME=FILE`` (``.npy`` or ``.pb``),
``--random`` values for the rest (seeded), ``--dim SYMBOL=SIZE`` for symbolic dims.

Random values: floats from the standard normal distribution, integers from [0, 5), booleans
at even odds, strings "a" to "e". A symbolic dim without ``--dim`` and an unknown dim are 1.
Inputs that are not tensors (sequences, maps, optionals) must be given as ``.pb`` files.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from onnxcraft import ir
from onnxcraft.compare.value_files import read_value_file
from onnxcraft.dtypes import INTEGER_TYPES, ElementType, numpy_dtype
from onnxcraft.errors import CommandLineError, TensorConversionError
from onnxcraft.numerics import from_float32
from onnxcraft.types import Tensor, ValueType

__all__ = ["add_feed_arguments", "feeds_from_arguments", "model_inputs"]

_RANDOM_INTEGERS = 5  # integers are drawn from [0, 5): valid as indices into most axes
_NATIVE_FLOATS = {ElementType.FLOAT, ElementType.DOUBLE, ElementType.FLOAT16}


def add_feed_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="an input's value from a .npy or .pb file (repeat for each input)",
    )
    parser.add_argument(
        "--random", action="store_true", help="random values for the inputs not given"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of --random (default 0)")
    parser.add_argument(
        "--dim",
        action="append",
        default=[],
        metavar="SYMBOL=SIZE",
        help="the size of a symbolic dim for --random (default 1)",
    )


def model_inputs(model: ir.Model) -> dict[str, ValueType | None]:
    """The inputs a caller feeds (initializers listed as inputs excluded), with their types."""
    initializers = {t.name for t in model.graph.initializers}
    return {i.name: i.type for i in model.graph.inputs if i.name not in initializers}


def _pair(text: str, option: str, value_name: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise CommandLineError(f"{option} {text!r}: expected NAME={value_name}")
    return name, value


def _dims(texts: list[str]) -> dict[str, int]:
    sizes = {}
    for text in texts:
        name, value = _pair(text, "--dim", "SIZE")
        if not value.isdigit():
            raise CommandLineError(f"--dim {text!r}: the size must be an integer >= 0")
        sizes[name] = int(value)
    return sizes


def _random_value(
    name: str, value_type: ValueType | None, rng: np.random.Generator, sizes: dict[str, int]
) -> Any:
    if not isinstance(value_type, Tensor) or value_type.elem_type is None:
        raise CommandLineError(
            f"--random: input {name!r} is {value_type or 'of unknown type'}, not a tensor of "
            f"known element type: give it with --input {name}=FILE.pb"
        )
    if value_type.shape is None:
        raise CommandLineError(
            f"--random: input {name!r} has no declared rank: give it with --input {name}=FILE"
        )
    shape = tuple(
        d if isinstance(d, int) else sizes.get(d, 1) if isinstance(d, str) else 1
        for d in value_type.shape
    )
    elem = value_type.elem_type
    if elem in _NATIVE_FLOATS:
        return rng.standard_normal(shape).astype(numpy_dtype(elem))
    if elem in INTEGER_TYPES:
        return rng.integers(0, _RANDOM_INTEGERS, shape).astype(numpy_dtype(elem))
    if elem == ElementType.BOOL:
        return rng.random(shape) < 0.5
    if elem == ElementType.STRING:
        letters = np.array(list("abcde"), dtype=object)
        return letters[rng.integers(0, len(letters), shape)]
    if elem in (ElementType.COMPLEX64, ElementType.COMPLEX128):
        parts = rng.standard_normal((2, *shape))
        return (parts[0] + 1j * parts[1]).astype(numpy_dtype(elem))
    try:
        return from_float32(rng.standard_normal(shape).astype(np.float32), elem)
    except (TensorConversionError, ValueError) as exc:  # a type with no random values
        raise CommandLineError(
            f"--random: no random values of {value_type} for input {name!r} ({exc}): give "
            f"it with --input {name}=FILE"
        ) from None


def feeds_from_arguments(model: ir.Model, args: argparse.Namespace) -> dict[str, Any]:
    """The feeds the command line describes, checked against the model's inputs."""
    inputs = model_inputs(model)
    feeds: dict[str, Any] = {}
    for text in args.input:
        name, path = _pair(text, "--input", "FILE")
        if name not in inputs:
            raise CommandLineError(
                f"--input {text!r}: the model has no input {name!r}; its inputs are {list(inputs)}"
            )
        if name in feeds:
            raise CommandLineError(f"--input: {name!r} is given twice")
        feeds[name] = read_value_file(path, inputs[name])
    missing = [name for name in inputs if name not in feeds]
    if missing and not args.random:
        raise CommandLineError(
            f"no value for input(s) {missing}: give --input NAME=FILE for each, or --random"
        )
    sizes = _dims(args.dim)
    rng = np.random.default_rng(args.seed)
    for name in missing:
        feeds[name] = _random_value(name, inputs[name], rng, sizes)
    return feeds
