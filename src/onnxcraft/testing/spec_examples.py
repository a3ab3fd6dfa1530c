"""The worked examples of the operator specs: decoding, evaluating and recording them.

Each version of an operator may carry ``examples`` (see docs/spec-format.md): inputs and
attributes as JSON data, and the outputs onnxcraft's evaluator gave, recorded by this module.
An example is in force from its version until a later version brings its own, and must give
its recorded outputs at every version it covers. The docs generator prints them; the tests
check them against the evaluator and onnxruntime.

    python -m onnxcraft.testing.spec_examples --record opset_specs/ai.onnx/Relu.json
    python -m onnxcraft.testing.spec_examples --check opset_specs/ai.onnx/*.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from onnxcraft.core.typestr import parse_type_string
from onnxcraft.dtypes import (
    FLOAT_TYPES,
    ElementType,
    element_type_of,
    from_type_string,
    numpy_dtype,
    type_string,
)
from onnxcraft.errors import OnnxcraftError, SpecError
from onnxcraft.numerics import from_float32, to_float32
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.specs.loader import load_file
from onnxcraft.specs.model import OpSpec
from onnxcraft.testing.examples import Example, example_of
from onnxcraft.testing.harness import infer_case, type_of_value
from onnxcraft.text.api import parse_graph
from onnxcraft.types import Map, Optional, Tensor, ValueType
from onnxcraft.types import Sequence as SequenceType

__all__ = [
    "SpecExample",
    "decode_value",
    "encode_value",
    "examples_at",
    "mismatches",
    "record_file",
    "same_value",
]

_SMALL_INTEGERS = frozenset(
    {ElementType.INT4, ElementType.UINT4, ElementType.INT2, ElementType.UINT2}
)
_SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


@dataclass(frozen=True)
class SpecExample:
    """One example of a spec, ready to run at one version.

    ``inputs`` and ``attributes`` are decoded values (numpy arrays, lists for sequences and
    variadic inputs, dicts for maps, ir.Graph for bodies); ``recorded`` the outputs written in
    the spec, decoded (empty before the first recording); ``output_names`` the names of the
    outputs the example asks for, in the node's order (a variadic output's name repeated).
    """

    spec: OpSpec
    index: int
    title: str
    inputs: dict[str, Any]
    attributes: dict[str, Any]
    recorded: dict[str, Any]
    output_names: tuple[str, ...]
    case: NodeCase

    @property
    def where(self) -> str:
        domain = self.spec.domain or "ai.onnx"
        return (
            f"{domain}::{self.spec.name}-{self.spec.since_version} example {self.index + 1} "
            f"({self.title!r}, written for version {self.spec.examples_since})"
        )

    def evaluate(self) -> dict[str, Any]:
        """The outputs onnxcraft's evaluator gives, keyed like ``recorded``."""
        example = self.example()
        if example.expected is None:
            raise SpecError(f"{self.where}: the evaluator refused it: {example.error}")
        return _by_name(self.output_names, list(example.expected), _variadic_names(self.spec))

    def example(self) -> Example:
        """The example as a one-node model with its feeds (for any backend)."""
        return example_of(self.case)


# -- values: JSON <-> numpy ---------------------------------------------------------------------


def _element_type(name: str, where: str) -> ElementType:
    try:
        return from_type_string(name)
    except ValueError:
        pass
    try:
        return element_type_of(np.dtype(name))
    except (TypeError, ValueError) as exc:
        raise SpecError(f"{where}: unknown dtype {name!r}") from exc


def _number(item: Any) -> Any:
    if isinstance(item, list):
        return [_number(x) for x in item]
    if isinstance(item, str) and item in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[item]
    return item


def _tensor(data: dict[str, Any], where: str) -> np.ndarray:
    elem = _element_type(data["dtype"], where)
    values = data.get("values", [])
    if elem == ElementType.STRING:
        array = np.array(values, dtype=object)
    else:
        numbers = np.array(_number(values), dtype=np.float64 if elem in FLOAT_TYPES else None)
        if elem in (ElementType.COMPLEX64, ElementType.COMPLEX128):
            numbers = numbers[..., 0] + 1j * numbers[..., 1]
        try:
            native = numpy_dtype(elem)
        except ValueError as exc:
            raise SpecError(f"{where}: dtype {data['dtype']!r} has no array form") from exc
        if native.names is not None or elem == ElementType.BOOL:
            array = from_float32(numbers, elem) if native.names else numbers.astype(bool)
        else:
            array = numbers.astype(native)
    if "shape" in data:
        array = array.reshape(data["shape"])
    return array


def decode_value(data: Any, where: str = "example") -> Any:
    """A value as the evaluator takes it, from its JSON form in a spec example."""
    if not isinstance(data, dict):
        raise SpecError(
            f"{where}: expected an object with 'dtype', 'sequence', 'map' or "
            f"'optional', got {data!r}"
        )
    if "sequence" in data:
        return [decode_value(item, f"{where}[{i}]") for i, item in enumerate(data["sequence"])]
    if "map" in data:
        key = _element_type(data["key_dtype"], where)
        value = _element_type(data["value_dtype"], where)
        keys = [str(k) if key == ElementType.STRING else int(k) for k, _ in data["map"]]
        dtype = object if value == ElementType.STRING else numpy_dtype(value)
        return {k: np.asarray(_number(v), dtype=dtype)[()] for k, (_, v) in zip(keys, data["map"])}
    if "optional" in data:
        inner = data["optional"]
        return None if inner is None else decode_value(inner, where)
    if "dtype" not in data:
        raise SpecError(f"{where}: a tensor needs a 'dtype'")
    return _tensor(data, where)


def _declared_type(data: Any, value: Any) -> ValueType:
    """The type a graph input declares for ``value`` (empty sequences and optionals need
    the JSON's dtype)."""
    if isinstance(data, dict) and "optional" in data:
        inner = data["optional"]
        if inner is None:
            return Optional(parse_type_string(data["type"]) if "type" in data else Tensor())
        return Optional(_declared_type(inner, value))
    if isinstance(data, dict) and "sequence" in data and not data["sequence"]:
        return SequenceType(Tensor(_element_type(data["dtype"], "sequence")))
    if isinstance(value, list):  # a sequence: its tensors may differ in shape, not in rank
        return SequenceType(_common_tensor_type(value))
    found = type_of_value(value)
    if isinstance(found, Map):
        return Map(
            _element_type(data["key_dtype"], "map"),
            Tensor(_element_type(data["value_dtype"], "map"), ()),
        )
    assert found is not None
    return found


def _common_tensor_type(values: list[Any]) -> Tensor:
    """The tensor type every value fits: their element type, each dim where all agree."""
    arrays = [np.asarray(v) for v in values]
    elem = element_type_of(arrays[0].dtype)
    ranks = {a.ndim for a in arrays}
    if len(ranks) > 1:
        return Tensor(elem)
    dims = [d if all(a.shape[i] == d for a in arrays) else None
            for i, d in enumerate(arrays[0].shape)]  # fmt: skip
    return Tensor(elem, dims)


def encode_value(value: Any) -> Any:
    """The JSON form of an evaluated value (the inverse of :func:`decode_value`)."""
    if value is None:
        return {"optional": None}
    if isinstance(value, list):
        encoded: dict[str, Any] = {"sequence": [encode_value(v) for v in value]}
        if not value:
            encoded["dtype"] = "float32"
        return encoded
    if isinstance(value, dict):
        keys = list(value)
        first = next(iter(value.values()), np.float32(0))
        return {
            "map": [
                [k if isinstance(k, str) else int(k), _plain(np.asarray(value[k]))] for k in keys
            ],
            "key_dtype": "string" if keys and isinstance(keys[0], str) else "int64",
            "value_dtype": _dtype_name(np.asarray(first)),
        }
    array = np.asarray(value)
    encoded = {"dtype": _dtype_name(array), "values": _plain(array)}
    if array.size == 0:
        encoded["shape"] = list(array.shape)
    return encoded


def _dtype_name(array: np.ndarray) -> str:
    if array.dtype == object:
        return "string"
    elem = element_type_of(array.dtype)
    if array.dtype.names is not None:
        return type_string(elem)
    return str(array.dtype)


def _plain(array: np.ndarray) -> Any:
    """Nested lists of JSON numbers: each float as the shortest text that reads back to the
    same value of its own type, NaN and infinities as strings."""
    if array.dtype.names is not None:
        exotic = element_type_of(array.dtype)
        array = to_float32(array)
        if exotic in _SMALL_INTEGERS:  # whole numbers, written as such
            array = array.astype(np.int64)
    if array.dtype == object:
        return array.tolist()
    if array.dtype.kind == "c":
        pairs = np.stack([array.real, array.imag], axis=-1)
        return _plain(pairs)
    if array.dtype.kind == "f":

        def text(x: Any) -> Any:
            if math.isnan(x):
                return "nan"
            if math.isinf(x):
                return "inf" if x > 0 else "-inf"
            return float(x) if array.dtype == np.float64 else float(str(x))

        if array.ndim == 0:
            return text(array[()])
        return [_plain(sub) for sub in array] if array.ndim > 1 else [text(x) for x in array]
    return array.tolist()


# numpy picks the SIMD code of exp, log, tanh ... for the CPU it runs on (AVX2, AVX-512 ...),
# and those agree only to a few units in the last place: an example recorded on one machine
# may come out one unit off on another (Attention's softmax: 3.0000002 against 3.0).
_ULPS = 4


def same_value(want: Any, got: Any) -> bool:
    """The same value: type, shape and every element (NaN equal to NaN); floating elements
    within a few units in the last place of their type, for the reason above."""
    if want is None or got is None:
        return want is None and got is None
    if isinstance(want, list) or isinstance(got, list):
        return (
            isinstance(want, list)
            and isinstance(got, list)
            and len(want) == len(got)
            and all(same_value(a, b) for a, b in zip(want, got))
        )
    if isinstance(want, dict) or isinstance(got, dict):
        return (
            isinstance(want, dict)
            and isinstance(got, dict)
            and list(want) == list(got)
            and all(same_value(want[k], got[k]) for k in want)
        )
    a, b = np.asarray(want), np.asarray(got)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.names is not None:
        a, b = to_float32(a), to_float32(b)
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True)) or _within_ulps(a, b)
    return bool(np.array_equal(a, b))


def _within_ulps(a: np.ndarray, b: np.ndarray) -> bool:
    """Every element within ``_ULPS`` units in the last place; NaNs and infinities where the
    other has the very same."""
    if a.dtype.kind == "c":
        return _within_ulps(a.real, b.real) and _within_ulps(a.imag, b.imag)
    finite = np.isfinite(a) & np.isfinite(b)
    if not np.array_equal(a[~finite], b[~finite], equal_nan=True):
        return False
    x, y = a[finite], b[finite]
    with np.errstate(over="ignore"):
        step = np.spacing(np.maximum(np.abs(x), np.abs(y)))
    return bool(np.all(np.abs(x - y) <= _ULPS * step))


# -- examples of a spec -------------------------------------------------------------------------


def examples_at(spec: OpSpec) -> list[SpecExample]:
    """The examples in force at ``spec``'s version, decoded (SpecError on a malformed one)."""
    return [_example(spec, index, data) for index, data in enumerate(spec.examples)]


def _example(spec: OpSpec, index: int, data: dict[str, Any]) -> SpecExample:
    where = f"{spec.domain or 'ai.onnx'}::{spec.name}-{spec.since_version} example {index + 1}"
    given = dict(data.get("inputs", {}))
    unknown = set(given) - {p.name for p in spec.inputs}
    if unknown:
        raise SpecError(
            f"{where}: no input named {sorted(unknown)} (inputs: {[p.name for p in spec.inputs]})"
        )
    inputs: dict[str, Any] = {}
    feeds: list[Input | None] = []
    for formal in spec.inputs:
        item = given.get(formal.name)
        if formal.option == "variadic":
            items = item if isinstance(item, list) else []
            values = [decode_value(x, f"{where} input {formal.name}") for x in items]
            inputs[formal.name] = values
            feeds.extend(Input(v, _declared_type(x, v)) for x, v in zip(items, values))
            continue
        if item is None:
            feeds.append(None)
            continue
        value = decode_value(item, f"{where} input {formal.name}")
        inputs[formal.name] = value
        feeds.append(Input(value, _declared_type(item, value)))
    while feeds and feeds[-1] is None:
        feeds.pop()
    attributes = {
        name: _attribute(value, f"{where} attribute {name}")
        for name, value in data.get("attributes", {}).items()
    }
    recorded_json = data.get("outputs", {})
    names = _output_names(spec, recorded_json, where)
    recorded = {
        name: (
            [decode_value(v, where) for v in value]
            if isinstance(value, list)
            else decode_value(value, where)
        )
        for name, value in recorded_json.items()
        if value is not None and not (isinstance(value, list) and None in value)
    }
    wanted = _wanted_outputs(spec, names)
    case = NodeCase(spec.domain, spec.name, spec.since_version, tuple(feeds), attributes, wanted)
    return SpecExample(
        spec, index, data.get("title", ""), inputs, attributes, recorded, names, case
    )


def _attribute(value: Any, where: str) -> Any:
    if isinstance(value, dict) and "graph" in value:
        return parse_graph(value["graph"])
    if isinstance(value, dict):
        return decode_value(value, where)
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [decode_value(v, where) for v in value]
    return value


def _output_names(spec: OpSpec, recorded: dict[str, Any], where: str) -> tuple[str, ...]:
    """Every required output, the optional ones the example lists, a variadic output as
    many times as the example lists values for it (once when it lists none)."""
    unknown = set(recorded) - {p.name for p in spec.outputs}
    if unknown:
        raise SpecError(
            f"{where}: no output named {sorted(unknown)} "
            f"(outputs: {[p.name for p in spec.outputs]})"
        )
    names: list[str] = []
    for formal in spec.outputs:
        if formal.option == "variadic":
            listed = recorded.get(formal.name)
            names.extend([formal.name] * (len(listed) if isinstance(listed, list) else 1))
        elif formal.option != "optional" or formal.name in recorded:
            names.append(formal.name)
    return tuple(names)


def _wanted_outputs(spec: OpSpec, names: tuple[str, ...]) -> tuple[bool, ...]:
    wanted: list[bool] = []
    for formal in spec.outputs:
        count = names.count(formal.name)
        wanted.extend([True] * count if count else [False])
    while wanted and not wanted[-1]:
        wanted.pop()
    return tuple(wanted)


def _by_name(names: Sequence[str], values: list[Any], variadic: set[str]) -> dict[str, Any]:
    """Values keyed by output name; a variadic output's values as a list, even just one
    (which may itself be a sequence, a list too)."""
    grouped: dict[str, Any] = {}
    for name, value in zip(names, values):
        if name in variadic:
            grouped.setdefault(name, []).append(value)
        else:
            grouped[name] = value
    return grouped


def _variadic_names(spec: OpSpec) -> set[str]:
    return {p.name for p in spec.outputs if p.option == "variadic"}


def _evaluated(example: SpecExample, problems: list[str]) -> dict[str, Any] | None:
    """The example's outputs (numpy's warnings on NaN and overflow silenced: examples show
    such values on purpose), or None with the evaluator's refusal added to ``problems``."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return example.evaluate()
    except OnnxcraftError as exc:
        problems.append(f"{example.where}: {exc}")
        return None


def mismatches(spec: OpSpec) -> list[str]:
    """Why the examples in force at ``spec`` do not give their recorded outputs (empty: all
    agree)."""
    problems: list[str] = []
    for example in examples_at(spec):
        if not example.recorded:
            problems.append(f"{example.where}: no recorded outputs (run --record)")
            continue
        got = _evaluated(example, problems)
        if got is None:
            continue
        for name, want in example.recorded.items():
            if not same_value(want, got.get(name)):
                problems.append(
                    f"{example.where}: output {name} is {encode_value_text(got.get(name))}, "
                    f"recorded {encode_value_text(want)}"
                )
    return problems


def encode_value_text(value: Any) -> str:
    return json.dumps(encode_value(value) if value is not None else None)


# -- recording --------------------------------------------------------------------------------


def _is_empty_sequence(encoded: Any) -> bool:
    return isinstance(encoded, dict) and encoded.get("sequence") == []


def _type_empty_sequences(example: SpecExample, outputs: dict[str, Any]) -> None:
    """An empty sequence holds no tensor to tell its element type: take it from inference."""
    wanted = [flag for flag in example.case.outputs if flag]
    inferred = [t for t, flag in zip(infer_case(example.case), example.case.outputs) if flag]
    for name, declared in zip(example.output_names, inferred[: len(wanted)]):
        encoded = outputs.get(name)
        if (
            isinstance(encoded, dict)
            and _is_empty_sequence(encoded)
            and isinstance(declared, SequenceType)
            and isinstance(declared.elem, Tensor)
            and declared.elem.elem_type is not None
        ):
            encoded["dtype"] = _dtype_name(np.empty(0, numpy_dtype(declared.elem.elem_type)))


def _specs_of_file(path: Path) -> tuple[OpSpec, ...]:
    # read afresh (not through the registry's cache): the file may just have been written
    return load_file(path.resolve(), path.resolve().parent.parent)


def record_file(path: Path) -> list[str]:
    """Evaluate the examples each version of ``path`` writes and store their outputs; then
    check every version they cover. Returns the problems found (empty: all recorded and
    agreeing)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    by_version = {s.since_version: s for s in _specs_of_file(path)}
    problems: list[str] = []
    for version in document["versions"]:
        if "examples" not in version:
            continue
        spec = by_version[version["since_version"]]
        for example, data in zip(examples_at(spec), version["examples"]):
            got = _evaluated(example, problems)
            if got is None:
                continue
            variadic = _variadic_names(spec)
            outputs = {
                name: [encode_value(v) for v in value] if name in variadic else encode_value(value)
                for name, value in got.items()
            }
            if any(_is_empty_sequence(v) for v in outputs.values()):
                _type_empty_sequences(example, outputs)
            data["outputs"] = outputs
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if text != path.read_text(encoding="utf-8"):
        path.write_text(text, encoding="utf-8")
    for spec in _specs_of_file(path):
        problems.extend(mismatches(spec))
    return problems


def _iter_paths(paths: Sequence[str]) -> Iterator[Path]:
    for text in paths:
        path = Path(text)
        yield from sorted(path.glob("*/*.json")) if path.is_dir() else [path]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m onnxcraft.testing.spec_examples",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--record", action="store_true", help="evaluate and store outputs")
    action.add_argument("--check", action="store_true", help="compare with stored outputs")
    parser.add_argument("paths", nargs="+", help="spec files (or a spec folder)")
    args = parser.parse_args(argv)
    problems: list[str] = []
    for path in _iter_paths(args.paths):
        if path.name in ("spec.schema.json", "domains.json"):
            continue
        if args.record:
            problems.extend(record_file(path))
        else:
            for spec in _specs_of_file(path):
                problems.extend(mismatches(spec))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
