"""Before/after, in one process: ``oc.infer_shapes`` of the working tree against the same
function at an earlier git revision, alternated round by round, on the models of ``zoo.py``
and a chain (weights as external data, as in ``bench_infer.py``).

    python tests/benchmarks/ab_infer.py --before REV [--models resnet50,...] [--rounds 9]

The revision's ``src/onnxcraft`` is copied to a temporary folder as the package
``onnxcraft_before`` (its imports renamed; its protobuf messages are the working tree's, since
a descriptor can be registered once per process). Both must give the same bytes. Each round
times each side ``inner`` times and keeps the best CPU time of the process
(``time.process_time``, which other processes on a shared machine disturb less than wall
time); the table gives the median (best) over rounds and after / before. With ``--calls N``
the sides alternate call by call instead, N calls each, and the table gives the tenth
percentile and the median of the calls (steadier on a machine others load in bursts).
``--typed`` gives every model its values' types first, as ``bench_infer.py``'s typed rows.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_infer
import zoo

import onnxcraft as oc

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "onnxcraft_before"


def load_revision(revision: str, into: Path) -> Any:
    """The package ``onnxcraft`` as of ``revision``, imported as ``onnxcraft_before``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "src/onnxcraft"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    package = into / "src" / PACKAGE
    (into / "src" / "onnxcraft").rename(package)
    word = re.compile(r"\bonnxcraft\b")
    for path in package.rglob("*.py"):
        path.write_text(word.sub(PACKAGE, path.read_text()))
    (package / "proto" / "onnx_pb2.py").write_text(
        "from onnxcraft.proto.onnx_pb2 import *  # noqa: F403\n"
        "from onnxcraft.proto.onnx_pb2 import DESCRIPTOR, SOURCE_SHA256  # noqa: F401\n"
    )
    (into / "opset_specs").symlink_to(ROOT / "opset_specs")  # (found beside src/)
    sys.path.insert(0, str(into / "src"))
    return importlib.import_module(PACKAGE)


def model_named(name: str) -> Any:
    """A model of ``zoo.py`` at batch 1, or ``chainN``: ``bench_infer``'s chain of N steps."""
    if name.startswith("chain"):
        return bench_infer.chain(int(name[len("chain") :]))
    return zoo.MODELS[name](1)


def alternated(timed: dict[str, Callable[[], float]], calls: int) -> dict[str, list[float]]:
    """Each side's ``timed()`` (a call's seconds) ``calls`` times, the sides in turn, the order
    swapped every call."""
    runs: dict[str, list[float]] = {side: [] for side in timed}
    order = list(timed)
    for call in range(calls):
        for side in order if call % 2 == 0 else order[::-1]:
            runs[side].append(timed[side]())
    return runs


def quantiles_row(name: str, runs: dict[str, list[float]], unit: float = 1e3) -> str:
    """A table row: the tenth percentile / median of before's and after's calls (in ``unit``
    of a second: 1e3 ms, 1e6 µs), and after / before of each."""
    p10 = {side: sorted(times)[len(times) // 10] for side, times in runs.items()}
    mid = {side: statistics.median(times) for side, times in runs.items()}
    digits = 3 if unit == 1e3 else 0
    b10, b50, a10, a50 = (
        f"{value * unit:.{digits}f}"
        for value in (p10["before"], mid["before"], p10["after"], mid["after"])
    )
    return (
        f"| {name} | {b10} / {b50} | {a10} / {a50} | "
        f"{p10['after'] / p10['before']:.3f} / {mid['after'] / mid['before']:.3f} |"
    )


def part_arguments(doc: str, models: str, calls: int) -> argparse.Namespace:
    """The command line of a script timing one part of inference (ab_read.py, ab_walk.py):
    ``--before``, ``--models`` and ``--calls``, with these defaults."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--before", required=True, help="a git revision")
    parser.add_argument("--models", default=models)
    parser.add_argument("--calls", type=int, default=calls)
    return parser.parse_args()


def print_part_header(before: str, part: str, calls: int) -> None:
    """The head of such a script's table: what it compares, then the columns."""
    print(f"# before: {before}; {part} only, p10 / median CPU µs of {calls} calls")
    print("| model | before µs | after µs | after / before |")
    print("|---|---|---|---|")


def best_of(fn: Callable[[], Any], inner: int) -> float:
    times = []
    for _ in range(inner):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a git revision")
    parser.add_argument("--models", default=",".join([*zoo.MODELS, "chain10000"]))
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=0, help="alternate call by call instead")
    parser.add_argument(
        "--first",
        action="store_true",
        help="with --calls: empty each side's process-wide tables of value types "
        "(types.shared_tensor's, serde's TypeProtos, and the before side's cache of type "
        "encodings of revisions before it was removed) before each of its calls, inside "
        "its time as bench_infer.py does, so that each call costs what a first call costs",
    )
    parser.add_argument(
        "--typed", action="store_true", help="models with every value typed (bench_infer's typed)"
    )
    args = parser.parse_args()
    if args.calls:
        alternate_calls(
            args.before, args.models.split(","), args.calls, typed=args.typed, first=args.first
        )
        return
    with tempfile.TemporaryDirectory() as folder:
        before = load_revision(args.before, Path(folder))
        print(f"# before: {args.before}; median (best) CPU ms over {args.rounds} rounds")
        print("| model | before ms | after ms | after / before |")
        print("|---|---|---|---|")
        for name in args.models.split(","):
            inner = 1 if name.startswith("chain") else 20
            data = bench_infer.strip(model_named(name), external=True, typed=args.typed)
            same = oc.infer_shapes(data).SerializeToString()
            assert same == before.infer_shapes(data).SerializeToString(), name
            sides = {
                "before": lambda d=data: before.infer_shapes(d),
                "after": lambda d=data: oc.infer_shapes(d),
            }
            runs: dict[str, list[float]] = {"before": [], "after": []}
            for round_ in range(args.rounds):
                order = ["before", "after"] if round_ % 2 == 0 else ["after", "before"]
                for side in order:
                    runs[side].append(best_of(sides[side], inner))
            b, a = runs["before"], runs["after"]
            print(
                f"| {name} | {statistics.median(b) * 1e3:.3f} ({min(b) * 1e3:.3f}) | "
                f"{statistics.median(a) * 1e3:.3f} ({min(a) * 1e3:.3f}) | "
                f"{statistics.median(a) / statistics.median(b):.3f} "
                f"({min(a) / min(b):.3f}) |",
                flush=True,
            )


def alternate_calls(
    revision: str, names: list[str], calls: int, *, typed: bool = False, first: bool = False
) -> None:
    """Both sides called in turn, ``calls`` times each: the tenth percentile and the median
    CPU time of their calls, and after / before of each (``first``: see ``--first``)."""
    with tempfile.TemporaryDirectory() as folder:
        before = load_revision(revision, Path(folder))
        kept = getattr(importlib.import_module(f"{PACKAGE}.proto.inference"), "_TYPE_ENCODINGS", {})
        tables = {
            side: [
                getattr(importlib.import_module(f"{package}.types"), "_SHARED_TENSORS", {}),
                getattr(importlib.import_module(f"{package}.proto.serde"), "_TYPE_PROTOS", {}),
            ]
            for side, package in (("before", PACKAGE), ("after", "onnxcraft"))
        }
        print(f"# before: {revision}; p10 / median CPU ms of {calls} calls, alternated")
        print("| model | before ms | after ms | after / before |")
        print("|---|---|---|---|")
        for name in names:
            data = bench_infer.strip(model_named(name), external=True, typed=typed)
            assert oc.infer_shapes(data).SerializeToString() == (
                before.infer_shapes(data).SerializeToString()
            ), name
            sides = {"before": before.infer_shapes, "after": oc.infer_shapes}

            def timed(side: str, data: bytes = data) -> float:
                start = time.process_time()
                if first:
                    if side == "before":
                        kept.clear()
                    for table in tables[side]:
                        table.clear()
                sides[side](data)
                return time.process_time() - start

            runs = alternated({side: functools.partial(timed, side) for side in sides}, calls)
            print(quantiles_row(name, runs), flush=True)


if __name__ == "__main__":
    main()
