"""``onnxcraft conformance`` (``python -m onnxcraft.testing.conformance``): the runner from a
shell. Exit status 0 when every case agreed or was refused, 1 when some case did not, 2 for
bad arguments."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import sys
from collections import Counter
from typing import Any

from onnxcraft.testing.conformance.backend import Backend, OnnxcraftBackend
from onnxcraft.testing.conformance.judge import AGREE, BACKEND_REFUSED, CLASSES
from onnxcraft.testing.conformance.onnxruntime_backend import OnnxruntimeBackend
from onnxcraft.testing.conformance.runner import conformance

__all__ = ["add_arguments", "main", "parser", "run"]


def parser() -> argparse.ArgumentParser:
    """The command line's options."""
    found = argparse.ArgumentParser(
        prog="onnxcraft conformance",
        description="Test an ONNX runtime against the standard on drawn cases of every "
        "operator version its profile allows.",
    )
    add_arguments(found)
    return found


def add_arguments(found: argparse.ArgumentParser) -> None:
    """Add the options to ``found`` (``onnxcraft conformance`` shares them)."""
    found.add_argument(
        "--backend",
        default="onnxruntime",
        help="onnxruntime, onnxcraft, or module:attribute naming a Backend object or a "
        "function returning one (default: onnxruntime)",
    )
    found.add_argument(
        "--operators",
        action="append",
        default=None,
        help="operators to run, comma-separated: TopK (every version), TopK-11, "
        "ai.onnx.ml::TreeEnsemble (default: every one the profile allows)",
    )
    found.add_argument("--examples", type=int, default=30, help="cases per operator version")
    found.add_argument("--seed", type=int, default=0, help="the seed of the drawing")
    found.add_argument("--timeout", type=float, default=20.0, help="seconds per case")
    found.add_argument(
        "--output", default=None, help="folder of the report and reproducers "
        "(default: conformance-<backend>)"
    )  # fmt: skip
    found.add_argument("--ir-version", type=int, default=None, help="cap the IR version")
    found.add_argument(
        "--opset",
        action="append",
        default=[],
        metavar="DOMAIN=VERSION",
        help="cap the opset of a domain (ai.onnx=21); repeatable",
    )
    found.add_argument("--quiet", action="store_true", help="no line per operator version")


def _backend(text: str) -> Backend:
    if text == "onnxruntime":
        return OnnxruntimeBackend()
    if text == "onnxcraft":
        return OnnxcraftBackend()
    module_name, _, attribute = text.partition(":")
    if not attribute:
        raise ValueError(
            f"--backend: expected onnxruntime, onnxcraft or module:attribute, got {text!r}"
        )
    found: Any = getattr(importlib.import_module(module_name), attribute)
    backend = found() if callable(found) and not hasattr(found, "prepare") else found
    if not isinstance(backend, Backend):
        raise ValueError(
            f"--backend: {text} is not a Backend (name, profile, representation, prepare)"
        )
    return backend


def main(argv: list[str] | None = None) -> int:
    """Run the conformance test the arguments describe; print the summary."""
    return run(parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Run the conformance test of parsed arguments; print the summary."""
    try:
        backend = _backend(args.backend)
        profile = backend.profile
        opsets = dict(profile.opsets)
        for item in args.opset:
            domain, _, version = item.partition("=")
            domain = "" if domain in ("ai.onnx", "") else domain
            opsets[domain] = min(int(version), opsets.get(domain, int(version)))
        changes: dict[str, Any] = {"opsets": opsets}
        if args.ir_version is not None:
            changes["ir_version"] = min(args.ir_version, profile.ir_version)
        profile = dataclasses.replace(profile, **changes)
    except (ValueError, ImportError, AttributeError) as exc:
        print(f"onnxcraft conformance: {exc}", file=sys.stderr)
        return 2
    operators = None
    if args.operators:
        operators = [name for item in args.operators for name in item.split(",") if name]
    output = args.output or f"conformance-{backend.name}"

    def progress(label: str, counts: Counter[str]) -> None:
        if not args.quiet:
            shown = ", ".join(f"{kind} {counts[kind]}" for kind in CLASSES if counts[kind])
            print(f"{label}: {shown or 'no case drawn'}", file=sys.stderr, flush=True)

    report = conformance(
        backend,
        operators=operators,
        examples=args.examples,
        seed=args.seed,
        profile=profile,
        output=output,
        timeout=args.timeout,
        progress=progress,
    )
    totals = report.totals()
    print(", ".join(f"{kind}: {totals[kind]}" for kind in CLASSES))
    print(f"report: {output}/report.md, {output}/report.html")
    return 0 if report.cases() == totals[AGREE] + totals[BACKEND_REFUSED] else 1
