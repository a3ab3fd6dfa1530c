"""``oc.check(full_check=True)`` against onnx's full checker on corrupted node-test models.

Run as a script to print the comparison table (corruption kind x models: how many each checker
rejects, both, only onnx, only onnxcraft)::

    PYTHONPATH=src python tests/core/check_vs_onnx.py            # every node-test model
    PYTHONPATH=src python tests/core/check_vs_onnx.py --sample 40  # a deterministic sample

``tests/core/test_check_vs_onnx.py`` runs the same comparison on a sample (all models with
``ONNXCRAFT_CHECK_VS_ONNX=all``) and requires that onnxcraft rejects everything onnx rejects,
and that each model only onnxcraft rejects breaks a rule listed in ``check_stricter.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import onnx

if __package__ in (None, ""):  # run as a script: make ``tests`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import onnxcraft as oc
from tests.core.corruptions import CORRUPTIONS
from tests.node_cases import case_names, node_tests_root

STRICTER = Path(__file__).with_name("check_stricter.json")
BASELINE = "none"  # the kind of the unchanged models


# onnx's Split-18 shape inference aborts the whole process (a C++ assertion) when a Split node
# has more outputs than its split says: for these the verdict is onnx's checker without
# inference (full_check=False).
ONNX_ABORTS = {
    "too-many-outputs": {
        "test_split_1d_uneven_split_opset18",
        "test_split_2d_uneven_split_opset18",
        "test_split_equal_parts_1d_opset18",
        "test_split_equal_parts_2d",
        "test_split_equal_parts_default_axis_opset18",
    }
}


@dataclass
class Verdict:
    kind: str
    case: str
    onnx_error: str  # "" when onnx accepts
    ours_error: str  # "" when onnxcraft's check accepts
    crashed: bool = False  # onnxcraft raised something else than ValidationError


@dataclass
class Row:
    models: int = 0
    onnx: int = 0
    ours: int = 0
    both: int = 0
    only_onnx: int = 0
    only_ours: int = 0
    examples: list[Verdict] = field(default_factory=list)


def sample(names: list[str], count: int | None) -> list[str]:
    """Every ``len/count``-th case, so that the sample spreads over all operators."""
    if count is None or count >= len(names):
        return names
    step = len(names) / count
    return [names[int(i * step)] for i in range(count)]


@cache
def _original(case: str) -> bytes:
    return (node_tests_root() / case / "model.onnx").read_bytes()


def _onnx_error(model: onnx.ModelProto, full: bool = True) -> str:
    try:
        onnx.checker.check_model(model, full_check=full)
    except Exception as exc:  # any refusal of onnx's, its checker's or its inference's
        return f"{type(exc).__name__}: {exc}".strip() or type(exc).__name__
    return ""


def _ours_error(model: onnx.ModelProto, full: bool = True) -> tuple[str, bool]:
    try:
        oc.check(model, full_check=full)
    except oc.ValidationError as exc:
        return str(exc) or "ValidationError", False
    except Exception as exc:  # a crash: reported, never counted as a clean refusal
        return f"{type(exc).__name__}: {exc}", True
    return "", False


def verdicts(cases: Iterable[str], kinds: Iterable[str]) -> Iterable[Verdict]:
    kinds = list(kinds)
    for case in cases:
        original = onnx.load_from_string(_original(case))
        for kind in kinds:
            if kind == BASELINE:
                model: onnx.ModelProto | None = original
            else:
                model = CORRUPTIONS[kind](original)
            if model is None:
                continue
            full = case not in ONNX_ABORTS.get(kind, ())
            ours, crashed = _ours_error(model, full)
            yield Verdict(kind, case, _onnx_error(model, full), ours, crashed)


def table(results: Iterable[Verdict]) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for verdict in results:
        row = rows.setdefault(verdict.kind, Row())
        row.models += 1
        onnx_rejects, ours_rejects = bool(verdict.onnx_error), bool(verdict.ours_error)
        row.onnx += onnx_rejects
        row.ours += ours_rejects
        row.both += onnx_rejects and ours_rejects
        row.only_onnx += onnx_rejects and not ours_rejects
        row.only_ours += ours_rejects and not onnx_rejects
        if onnx_rejects != ours_rejects or verdict.crashed:
            row.examples.append(verdict)
    return rows


def render(rows: dict[str, Row]) -> str:
    header = ("corruption", "models", "onnx rejects", "onnxcraft rejects", "both", "only onnx",
              "only onnxcraft")  # fmt: skip
    fields = ("models", "onnx", "ours", "both", "only_onnx", "only_ours")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    total = Row()
    for kind, row in rows.items():
        numbers = [getattr(row, name) for name in fields]
        lines.append(f"| {kind} | " + " | ".join(str(n) for n in numbers) + " |")
        for name in fields:
            setattr(total, name, getattr(total, name) + getattr(row, name))
    numbers = [getattr(total, name) for name in fields]
    lines.append("| **all** | " + " | ".join(str(n) for n in numbers) + " |")
    return "\n".join(lines)


def stricter_rules() -> dict[str, dict[str, str]]:
    """Kind -> {"rule": the check rule, "spec": the sentence of the standard it enforces}."""
    return dict(json.loads(STRICTER.read_text())["stricter"])


def known_gaps() -> dict[str, dict[str, object]]:
    """Kind -> {"cases": models onnx's inference rejects and onnxcraft accepts, "why": ...}."""
    return dict(json.loads(STRICTER.read_text())["gaps"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=None, help="models to use (default all)")
    parser.add_argument("--kind", action="append", help="only these corruption kinds")
    parser.add_argument("--show", type=int, default=0, help="disagreements to print per kind")
    args = parser.parse_args()
    cases = sample(case_names(), args.sample)
    kinds = args.kind or [BASELINE, *CORRUPTIONS]
    rows = table(verdicts(cases, kinds))
    print(render(rows))
    for kind, row in rows.items():
        for verdict in row.examples[: args.show]:
            print(f"\n{kind} {verdict.case} crashed={verdict.crashed}")
            print("  onnx:", verdict.onnx_error[:300].replace("\n", " "))
            print("  ours:", verdict.ours_error[:300].replace("\n", " "))


if __name__ == "__main__":
    main()
