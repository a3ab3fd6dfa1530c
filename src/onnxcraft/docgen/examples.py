"""The worked examples of a spec, run and printed: inputs, the call as DSL code, outputs.

Each example in force at a version is evaluated with onnxcraft's evaluator (through
:mod:`onnxcraft.testing.spec_examples`, the module that records them); an output that differs
from the one recorded in the spec stops the build with a :class:`SpecError` naming the
operator, the version, the example and both values. An operator the evaluator cannot run (a
user's operator with no kernel registered) has its examples printed as written, unevaluated.
"""

from __future__ import annotations

import json
import keyword
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from onnxcraft.docgen.values import element_name, value_text
from onnxcraft.errors import OnnxcraftError, SpecError
from onnxcraft.numerics import to_float32
from onnxcraft.specs.model import OpSpec
from onnxcraft.testing.spec_examples import SpecExample, examples_at, same_value
from onnxcraft.text.api import to_text

__all__ = ["RenderedExample", "render_examples"]

_WIDTH = 88  # a longer call is written one argument a line


@dataclass(frozen=True)
class RenderedExample:
    """One example as the page shows it: its title and the text of its code block."""

    title: str
    text: str
    evaluated: bool


def _identifier(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "value"
    if cleaned[0].isdigit() or keyword.iskeyword(cleaned):
        cleaned += "_"
    return cleaned


def _array_code(array: np.ndarray) -> str:
    """A tensor attribute as ``np.array(...)`` (low-precision types: their float32 values,
    with the type named in a comment)."""
    name = element_name(array)
    if array.dtype.names is not None:
        return f"np.array({to_float32(array).tolist()!r}, np.float32)  # as {name}"
    if array.dtype == object:
        return f"np.array({array.tolist()!r}, object)"
    text = repr(array.tolist()).replace("nan", "np.nan").replace("inf", "np.inf")
    return f"np.array({text}, np.{name})"


def _attribute_code(value: Any) -> str:
    """An attribute's value as the keyword argument of a DSL call."""
    if isinstance(value, np.ndarray):
        return _array_code(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (str, int, list)):
        return json.dumps(value, ensure_ascii=False)
    return ""  # a body: printed in the ONNX text syntax before the call, named as its attribute


def _inputs(example: SpecExample) -> tuple[list[str], list[str]]:
    """The lines showing each input's value, and the call's positional arguments."""
    lines: list[str] = []
    arguments: list[str] = []
    pending_none = 0
    for formal in example.spec.inputs:
        if formal.name not in example.inputs:
            pending_none += 1
            continue
        value = example.inputs[formal.name]
        names = [_identifier(formal.name)]
        values = [value]
        if formal.option == "variadic":
            names = [f"{_identifier(formal.name)}_{i}" for i in range(len(value))]
            values = list(value)
        arguments += ["None"] * pending_none
        pending_none = 0
        for name, item in zip(names, values):
            lines += [f"{name}: {value_text(item)}", ""]
            arguments.append(name)
    return lines, arguments


def _output_names(example: SpecExample, got: dict[str, Any]) -> list[tuple[str, Any]]:
    named: list[tuple[str, Any]] = []
    variadic = {p.name for p in example.spec.outputs if p.option == "variadic"}
    for formal in example.spec.outputs:
        if formal.name not in got:
            continue
        value = got[formal.name]
        if formal.name in variadic:  # evaluate() gives a variadic output's values as a list
            named += [(f"{_identifier(formal.name)}_{i}", v) for i, v in enumerate(value)]
        else:
            named.append((_identifier(formal.name), value))
    return named


def _call(example: SpecExample, module: str, arguments: list[str], outputs: list[str]) -> str:
    keywords = [
        f"{name}={_attribute_code(value) or name}"
        for name, value in sorted(example.attributes.items())
    ]
    left = f"{', '.join(outputs) or '_'} = {module}.{example.spec.name}("
    line = f"{left}{', '.join(arguments + keywords)})"
    if len(line) <= _WIDTH:
        return line
    return "\n".join([left, *(f"    {item}," for item in arguments + keywords), ")"])


def _bodies(example: SpecExample) -> list[str]:
    lines = []
    for name, value in sorted(example.attributes.items()):
        if not isinstance(value, (np.ndarray, str, int, float, list)):
            lines += [f"{name}: a graph", to_text(value).rstrip(), ""]
    return lines


def _evaluate(example: SpecExample) -> dict[str, Any]:
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            got = example.evaluate()
    except SpecError as exc:  # it names the example already
        raise SpecError(f"docs: {exc}") from exc
    except OnnxcraftError as exc:
        raise SpecError(f"docs: {example.where}: the evaluator refused it: {exc}") from exc
    if not example.recorded:
        raise SpecError(
            f"docs: {example.where} has no recorded outputs; record them with "
            f"`python -m onnxcraft.testing.spec_examples --record <spec file>`"
        )
    for name, want in example.recorded.items():
        if not same_value(want, got.get(name)):
            raise SpecError(
                f"docs: {example.where}: the evaluator gives output {name} =\n"
                f"{value_text(got.get(name))}\nbut the spec records\n{value_text(want)}"
            )
    # The page shows what the spec records: the evaluator agrees with it to the last few
    # units of a float (same_value), and the page must not change with the CPU it is built on.
    return {**got, **example.recorded}


def render_examples(
    spec: OpSpec, module: str, can_evaluate: Callable[[OpSpec], bool]
) -> list[RenderedExample]:
    """The examples in force at ``spec``, evaluated when ``can_evaluate(spec)``; ``module`` is
    the name the call is written on (``op`` for ``... import v21 as op``)."""
    rendered = []
    for example in examples_at(spec):
        evaluated = can_evaluate(spec)
        got = _evaluate(example) if evaluated else dict(example.recorded)
        lines, arguments = _inputs(example)
        lines += _bodies(example)
        outputs = (
            _output_names(example, got)
            if got
            else [(_identifier(name), None) for name in dict.fromkeys(example.output_names)]
        )
        lines += [_call(example, module, arguments, [name for name, _ in outputs]), ""]
        if got:
            for name, value in outputs:
                lines += [f"{name}: {value_text(value)}", ""]
        rendered.append(RenderedExample(example.title, "\n".join(lines).rstrip(), evaluated))
    return rendered
