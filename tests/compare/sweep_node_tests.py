"""oc.compare on every ONNX node test: against float64, onnxruntime and the test's expected
outputs. A measurement, not a test (the suite runs a sample in test_compare.py):

    python tests/compare/sweep_node_tests.py [--limit N]

prints, for each reference, how many models agree, differ, or cannot be compared, with the
first few of each kind and why.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import onnxcraft as oc
from tests.node_cases import case_names, load_case, node_tests_root


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    names = case_names()[: args.limit]
    outcomes: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[tuple[str, str], list[str]] = defaultdict(list)
    started = time.perf_counter()
    warnings.simplefilter("ignore")
    for name in names:
        try:
            case = load_case(name)
            oc.evaluate(case.model, case.inputs)
        except Exception:
            outcomes["all"]["onnxcraft cannot run it"] += 1
            continue
        folder = node_tests_root() / name / "test_data_set_0"
        for label, against in (
            ("float64", "float64"),
            ("onnxruntime", "onnxruntime"),
            ("expected", folder),
        ):
            try:
                report = oc.compare(case.model, case.inputs, against=against)
                kind = "agree" if report.agrees else "differ"
                detail = (
                    "" if report.agrees else str(report.first_divergence or report.first_difference)
                )
            except oc.OnnxcraftError as exc:
                kind, detail = "cannot compare", str(exc).splitlines()[0][:160]
            outcomes[label][kind] += 1
            if kind != "agree" and len(examples[label, kind]) < 8:
                examples[label, kind].append(f"{name}: {detail}")
    print(f"{len(names)} node tests, {time.perf_counter() - started:.0f} s")
    for label, counts in outcomes.items():
        print(f"{label}: {dict(counts)}")
    for (label, kind), lines in examples.items():
        print(f"\n{label}, {kind}:")
        for line in lines:
            print(f"  {line}")


if __name__ == "__main__":
    main()
