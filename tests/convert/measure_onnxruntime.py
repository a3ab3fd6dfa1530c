"""onnxruntime (the oracle) on every downgraded node-test model: does it load and run each
conversion within its opset range, and give the node test's expected outputs?

    python tests/convert/measure_onnxruntime.py [--every N] [--offset K] [--json out.json]

For every eligible case (``tests/convert/matrix.py``) and every ai.onnx target from 7 up to
(not including) the case's own opset and no newer than onnxruntime's newest (read from its
kernel table), the model is converted by ``oc.convert_version`` and by onnx's
``version_converter``; each converted model runs in onnxruntime (CPU, one thread, in the
crash-contained worker of the conformance runner) and its outputs are compared with the
expected ones by the node-conformance comparison. A refusal is sorted by cause; every
disagreement is judged: the original model in onnxruntime at its own opset (already wrong
there: onnxruntime's), else ``oc.evaluate`` of the converted model (right: onnxruntime's older
kernel; wrong: the conversion's).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import re
import sys
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import onnxcraft as oc
from onnxcraft.proto.serde import model_from_proto
from onnxcraft.testing.conformance.onnxruntime_backend import (
    OnnxruntimeBackend,
    onnxruntime_module,
    runtime_profile,
)
from onnxcraft.testing.conformance.worker import Outcome, Worker
from onnxcraft.testing.examples import backend_value
from tests.convert.matrix import eligible, load_case
from tests.evaluate.test_node_conformance import compare
from tests.node_cases import Case, case_names

WHO = ("onnxcraft", "onnx")


def kernel_ranges() -> dict[str, list[tuple[int, int]]]:
    """Version ranges of onnxruntime's CPU kernels of the ai.onnx domain, by operator."""
    state = importlib.import_module("onnxruntime.capi.onnxruntime_pybind11_state")
    ranges: dict[str, list[tuple[int, int]]] = collections.defaultdict(list)
    for kernel in state.get_all_opkernel_def():
        if kernel.provider == "CPUExecutionProvider" and kernel.domain in ("", "ai.onnx"):
            ranges[kernel.op_name].append(tuple(kernel.version_range))
    return ranges


_NO_IMPL = re.compile(r"Could not find an implementation for (\w+)\((\d+)\)")


def refusal_cause(message: str, ranges: dict[str, list[tuple[int, int]]]) -> str:
    """Why onnxruntime refused: no kernel of the operator at that version, a kernel that does
    not take the element type, or another reason."""
    found = _NO_IMPL.search(message)
    if found:
        op, version = found.group(1), int(found.group(2))
        if any(low <= version <= high for low, high in ranges.get(op, [])):
            return "type not supported"
        return "no kernel at that opset"
    if "Type Error" in message or ("type" in message.lower() and "not supported" in message):
        return "type not supported"
    return "other"


def first_difference(case: Case, names: tuple[str, ...], outputs: tuple[Any, ...]) -> str:
    """The first output that differs from the expected one, in the comparison's words ("" if
    all agree)."""
    for name, got in zip(names, outputs):
        try:
            compare(name, got, case.outputs[name])
        except AssertionError as exc:
            text = " ".join(str(exc).split())
            return text[:240]
    return ""


def evaluator_agrees(case: Case, model: Any) -> str:
    """The difference of ``oc.evaluate`` of ``model`` from the expected outputs ("" if none)."""
    try:
        values = oc.evaluate(model, case.inputs)
    except Exception as exc:  # any failure of the evaluator is a difference here
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    names = tuple(case.outputs)
    return first_difference(case, names, tuple(values[n] for n in names))


def source_opset(case: Case) -> int:
    return next(o.version for o in case.model.opset_import if o.domain in ("", "ai.onnx"))


def onnx_converted(case: Case, target: int) -> Any:
    """onnx's version_converter's model, or None where it refuses."""
    import onnx
    from onnx import version_converter

    model = onnx.load_from_string(case.model.SerializeToString())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return version_converter.convert_version(model, target)
    except Exception:  # its refusals are counted in measure_conversions.py
        return None


class Tally:
    def __init__(self) -> None:
        self.counts: dict[str, collections.Counter[str]] = {w: collections.Counter() for w in WHO}
        self.refusals: dict[str, dict[str, list[str]]] = {w: {} for w in WHO}
        self.disagreements: dict[str, list[dict[str, Any]]] = {w: [] for w in WHO}

    def refuse(self, who: str, cause: str, example: str) -> None:
        self.counts[who][f"refused: {cause}"] += 1
        self.refusals[who].setdefault(cause, []).append(example)


def run_case(
    name: str, worker: Worker, newest: int, ranges: dict[str, list[tuple[int, int]]], tally: Tally
) -> None:
    case = load_case(name)
    source = source_opset(case)
    targets = list(range(7, min(source, newest + 1)))
    if not targets:
        return
    feeds = {k: backend_value(v) for k, v in case.inputs.items()}
    names = tuple(o.name for o in model_from_proto(case.model).graph.outputs)
    original_verdict: str | None = None  # "" agrees, else how (run once, when needed)

    def run(model: Any) -> Outcome:
        return worker.run(model.SerializeToString(), feeds, names)

    def original() -> str:
        nonlocal original_verdict
        if original_verdict is None:
            outcome = run(case.model)
            if outcome.kind != "ran":
                original_verdict = f"{outcome.kind}: {outcome.message[:160]}"
            else:
                original_verdict = first_difference(case, names, outcome.outputs)
        return original_verdict

    for target in targets:
        models: dict[str, Any] = {}
        try:
            models["onnxcraft"] = oc.convert_version(case.model, target)
        except oc.VersionConversionError:
            models["onnxcraft"] = None
        models["onnx"] = onnx_converted(case, target)
        for who, model in models.items():
            counts = tally.counts[who]
            counts["pairs in range"] += 1
            if model is None:
                continue
            counts["converted"] += 1
            outcome = run(model)
            if outcome.kind == "crashed":
                also = ", original crashed too" if original().startswith("crashed") else ""
                tally.refuse(who, "crashed" + also, f"{name} @{target}: {outcome.message[:160]}")
                continue
            if outcome.kind == "refused":
                message = " ".join(outcome.message.split())
                cause = refusal_cause(message, ranges)
                # a refusal of the original too is onnxruntime's limit, not the conversion's
                cause += ", original refused too" if original().startswith("refused") else ""
                tally.refuse(who, cause, f"{name} @{target}: {message[:220]}")
                continue
            counts["ran"] += 1
            difference = first_difference(case, names, outcome.outputs)
            if not difference:
                counts["ran and agreed"] += 1
                continue
            counts["ran and disagreed"] += 1
            before = original()
            if before:
                blame = "onnxruntime (already wrong at the original's opset)"
                why = before
            else:
                wrong = evaluator_agrees(case, model)
                blame = "the conversion" if wrong else "onnxruntime's older kernel"
                why = wrong
            counts[f"disagreed: {blame}"] += 1
            tally.disagreements[who].append(
                {
                    "case": name,
                    "source": source,
                    "target": target,
                    "difference": difference,
                    "blame": blame,
                    "why": why,
                }
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--every", type=int, default=1, help="take every N-th case")
    parser.add_argument("--offset", type=int, default=0, help="starting at this case")
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    ort = onnxruntime_module()
    newest = runtime_profile().opsets[""]
    ranges = kernel_ranges()
    names = [n for n in case_names() if eligible(n)][args.offset :: args.every]
    tally = Tally()
    start = time.perf_counter()
    with Worker(OnnxruntimeBackend(), timeout=60.0) as worker:
        for index, name in enumerate(names):
            if index % 100 == 0:
                print(f"[{index}/{len(names)}] {time.perf_counter() - start:.0f} s",
                      file=sys.stderr, flush=True)  # fmt: skip
            run_case(name, worker, newest, ranges, tally)
    elapsed = time.perf_counter() - start
    print(
        f"onnxruntime {ort.__version__} (ai.onnx opsets 7..{newest}); {len(names)} cases, "
        f"targets 7..min(own opset - 1, {newest}); {elapsed:.0f} s"
    )
    for who in WHO:
        counts = tally.counts[who]
        print(f"\n== {who}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        for cause, examples in sorted(tally.refusals[who].items()):
            print(f"   refused ({cause}) {len(examples)}, e.g.:")
            for example in examples[:: max(1, len(examples) // 4)][:4]:
                print(f"      {example}")
        grouped: dict[tuple[str, str], list[dict[str, Any]]] = collections.defaultdict(list)
        for item in tally.disagreements[who]:
            grouped[(item["case"], item["blame"])].append(item)
        for (case, blame), items in grouped.items():
            targets = ",".join(str(i["target"]) for i in items)
            print(f"   DISAGREED {case} (opset {items[0]['source']}) at {targets}: {blame}")
            print(f"      first difference: {items[0]['difference'][:200]}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "onnxruntime": ort.__version__,
                    "newest_opset": newest,
                    "cases": len(names),
                    "counts": {w: dict(c) for w, c in tally.counts.items()},
                    "refusals": tally.refusals,
                    "disagreements": tally.disagreements,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
