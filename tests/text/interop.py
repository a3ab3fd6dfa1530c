"""The three interop checks of the text form on one model, shared by the test and the script
that runs them on every node-test model (``python -m tests.text.interop``).

(a) onnx's printer -> ``oc.parse``; (b) ``oc.to_text(full_tensors=True)`` -> onnx's parser;
(c) ``oc.to_text(full_tensors=True)`` -> ``oc.parse``. Each must give a model whose normal
form (``normal_form.py``) equals the original's; a check returns None when it does, else
what differs.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import onnx
import onnx.parser
import onnx.printer

import onnxcraft as oc
from tests.text.normal_form import normal_form

HERE = Path(__file__).resolve().parent
KNOWN = HERE / "data" / "interop_known_failures.json"
CHECKS = ("onnx_printer_to_oc_parse", "oc_to_text_to_onnx_parser", "oc_round_trip")


def _first_difference(left: Any, right: Any, path: str = "model") -> str:
    if type(left) is not type(right):
        return f"{path}: {type(left).__name__} != {type(right).__name__}"
    if isinstance(left, dict):
        for key in left:
            if key not in right:
                return f"{path}.{key}: missing"
            if left[key] != right[key]:
                return _first_difference(left[key], right[key], f"{path}.{key}")
        return f"{path}: keys differ"
    if isinstance(left, (list, tuple)):
        if len(left) != len(right):
            return f"{path}: {len(left)} items != {len(right)}"
        for index, (a, b) in enumerate(zip(left, right)):
            if a != b:
                return _first_difference(a, b, f"{path}[{index}]")
    text_a, text_b = repr(left), repr(right)
    return f"{path}: {text_a[:120]} != {text_b[:120]}"


def _compare(original: Any, result: Any) -> str | None:
    expected, found = normal_form(original), normal_form(result)
    return None if expected == found else _first_difference(expected, found)


def check(model_bytes: bytes, which: str) -> str | None:
    """Run one check on a model's bytes: None when it passes, else why not."""
    try:
        if which == "onnx_printer_to_oc_parse":
            text = onnx.printer.to_text(onnx.ModelProto.FromString(model_bytes))
            return _compare(model_bytes, oc.parse(text))
        text = oc.to_text(model_bytes, full_tensors=True)
        if which == "oc_to_text_to_onnx_parser":
            return _compare(model_bytes, onnx.parser.parse_model(text))
        return _compare(model_bytes, oc.parse(text))
    except Exception as exc:  # a failure to report, with its kind
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"


def known_failures() -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(KNOWN.read_text())
    return {key: value for key, value in data.items() if key in CHECKS}


def main() -> None:
    from tests.node_cases import case_names, node_tests_root

    root = node_tests_root()
    names = case_names()
    failures: dict[str, dict[str, str]] = {c: {} for c in CHECKS}
    start = time.perf_counter()
    for name in names:
        data = (root / name / "model.onnx").read_bytes()
        for which in CHECKS:
            problem = check(data, which)
            if problem is not None:
                failures[which][name] = problem
    elapsed = time.perf_counter() - start
    for which in CHECKS:
        print(f"{which}: {len(names) - len(failures[which])}/{len(names)} pass")
    print(f"{len(names)} models, 3 checks each, {elapsed:.1f} s")
    json.dump(failures, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
