"""Measure the conversion matrix: every eligible node-test model to every target opset 7..28,
by onnxcraft and by onnx.version_converter, judged the same way (``tests/convert/matrix.py``).

    python tests/convert/measure_conversions.py [--every N] [--targets 7,13,21] [--json out.json]

Prints attempted / converted / refused (by reason) / wrong for each converter.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.convert.matrix import TARGETS, eligible, load_case, onnx_converter, original, ours
from tests.node_cases import case_names


def _reason(detail: str) -> str:
    return re.sub(r"'[^']*'|\d+", "_", detail)[:110]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--every", type=int, default=1, help="take every N-th case")
    parser.add_argument("--offset", type=int, default=0, help="starting at this case")
    parser.add_argument("--targets", default=",".join(map(str, TARGETS)))
    parser.add_argument("--json", default="")
    parser.add_argument("--no-onnx", action="store_true")
    args = parser.parse_args()
    targets = [int(t) for t in args.targets.split(",")]
    names = [n for n in case_names() if eligible(n)][args.offset :: args.every]
    stats = {k: collections.Counter() for k in ("ours", "onnx")}
    reasons = {k: collections.Counter() for k in ("ours", "onnx")}
    wrong = {k: [] for k in ("ours", "onnx")}
    both = collections.Counter()
    start = time.perf_counter()
    slow: list[tuple[float, str]] = []
    for index, name in enumerate(names):
        if index % 100 == 0:
            print(f"[{index}/{len(names)}] {time.perf_counter() - start:.0f} s", file=sys.stderr,
                  flush=True)  # fmt: skip
        case_start = time.perf_counter()
        case = load_case(name)
        values = original(case)
        for target in targets:
            found = {"ours": ours(case, target, values)}
            if not args.no_onnx:
                found["onnx"] = onnx_converter(case, target, values)
            for who, verdict in found.items():
                stats[who]["attempted"] += 1
                stats[who][verdict.outcome] += 1
                if verdict.outcome == "converted" and verdict.exact:
                    stats[who]["bit-exact"] += 1
                if verdict.outcome != "converted":
                    reasons[who][f"{verdict.outcome}: {_reason(verdict.detail)}"] += 1
                if verdict.outcome in ("wrong", "error"):
                    wrong[who].append((name, target, verdict.detail))
            if not args.no_onnx:
                both[(found["ours"].outcome, found["onnx"].outcome)] += 1
        slow.append((time.perf_counter() - case_start, name))
    elapsed = time.perf_counter() - start
    print(f"{len(names)} cases x {len(targets)} targets in {elapsed:.0f} s")
    print("slowest cases:", [(f"{t:.1f}", n) for t, n in sorted(slow, reverse=True)[:5]])
    for who, counts in stats.items():
        if not counts:
            continue
        print(f"\n== {who}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        for reason, count in reasons[who].most_common(25):
            print(f"   {count:6d}  {reason}")
        for item in wrong[who][:40]:
            print("   WRONG", item)
    if both:
        print("\n(ours, onnx):", dict(both))
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "cases": len(names),
                    "targets": targets,
                    "stats": {k: dict(v) for k, v in stats.items()},
                    "reasons": {k: dict(v) for k, v in reasons.items()},
                    "wrong": wrong,
                    "pairs": {f"{a}/{b}": c for (a, b), c in both.items()},
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
