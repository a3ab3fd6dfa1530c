"""Model-file benchmark: save and load a model with 1 GiB of float32 initializers.

    python tests/benchmarks/bench_io.py [--mib 1024] [--tensors 16] [--repeat 5] [--dir DIR]
        [--only LIBRARY ...] [--modes external inline]

For onnxcraft saving a ModelProto (by default, and with fsync=True: forced to disk before the
rename), onnxcraft-ir saving what oc.build_ir made of DSL code with the arrays as literals,
onnx (numpy_helper + onnx.save) and onnx_ir, building+saving and loading each in a fresh
subprocess, the libraries taking turns round by round, prints the time of building the model
from the arrays, the time and MB/s of saving it inline and with external data, of loading it
back, and the extra peak memory of each step: the high-water mark of resident memory during
the step minus the resident memory just before it (Linux's VmHWM, reset through
/proc/self/clear_refs before the step). The fastest of --repeat runs counts (disk and
page-fault noise only slow a run down); the median save time is printed too. For a close
comparison of two libraries, e.g. ``--dir /dev/shm --only onnxcraft-ir onnx_ir --modes
external --repeat 8``.

Targets (issue 2): with external data, at least onnx_ir's rate and extra peak memory under 10%
of the tensor bytes; inline, at least onnx's rate.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

WORKER = Path(__file__).with_name("_io_worker.py")
LIBRARIES = ("onnxcraft", "onnxcraft+fsync", "onnxcraft-ir", "onnx", "onnx_ir")


def _worker(library: str, mode: str, folder: Path, mib: int, count: int, what: str) -> Any:
    out = subprocess.run(
        [sys.executable, str(WORKER), library, mode, str(folder), str(mib), str(count), what],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        if "ModuleNotFoundError" in out.stderr:
            return None
        raise RuntimeError(f"{library} {mode} {what} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(
    library: str, mode: str, folder: Path, mib: int, count: int
) -> dict[str, list[float]] | None:
    """Build and save in one fresh process, load in another: no step inherits another's memory."""
    steps = _worker(library, mode, folder, mib, count, "save")
    if steps is None:
        return None
    return {**steps, **_worker(library, mode, folder, mib, count, "load")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mib", type=int, default=1024)
    parser.add_argument("--tensors", type=int, default=16)
    parser.add_argument(
        "--repeat", type=int, default=5, help="fresh processes per case; the fastest counts"
    )
    parser.add_argument(
        "--dir",
        default=None,
        help="where to write (default: the system's temp folder); a tmpfs such as /dev/shm "
        "takes the disk's own speed and noise out and compares the libraries' work alone",
    )
    parser.add_argument(
        "--only", nargs="+", choices=LIBRARIES, default=LIBRARIES, help="libraries to run"
    )
    parser.add_argument(
        "--modes", nargs="+", choices=("external", "inline"), default=("external", "inline")
    )
    args = parser.parse_args()
    libraries = tuple(args.only)
    size = args.mib * 2**20
    where = args.dir or tempfile.gettempdir()
    print(f"{args.mib} MiB of float32 initializers in {args.tensors} tensors, written in {where}")
    print(
        f"{'library':<16} {'mode':<9} {'build s':>7} {'build +MB':>9} {'save s':>7} "
        f"{'median':>7} {'save MB/s':>9} {'save +MB':>9} {'load s':>7} {'load MB/s':>9} "
        f"{'load +MB':>9}"
    )
    rates: dict[tuple[str, str], float] = {}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for mode in args.modes:
            results: dict[str, list[dict[str, list[float]]]] = {name: [] for name in libraries}
            missing: set[str] = set()
            # Round by round, every library in turn: a slow spell of the disk hits them alike.
            for _ in range(args.repeat):
                for library in libraries:
                    if library in missing:
                        continue
                    result = run(library, mode, Path(tmp), args.mib, args.tensors)
                    if result is None:
                        missing.add(library)  # not installed
                        continue
                    results[library].append(result)
                    for path in Path(tmp).iterdir():
                        path.unlink()
            for library in libraries:
                runs = results[library]
                if not runs:
                    print(f"{library:<16} {mode:<9} (not installed)")
                    continue
                # Disk and page-fault noise only ever slows a run down: keep each step's fastest.
                build_s, build_mem = min((r["build"] for r in runs), key=lambda s: s[0])
                save_s, save_mem = min((r["save"] for r in runs), key=lambda s: s[0])
                save_median = statistics.median(r["save"][0] for r in runs)
                load_s, load_mem = min((r["load"] for r in runs), key=lambda s: s[0])
                rates[(library, mode)] = size / save_s / 1e6
                print(
                    f"{library:<16} {mode:<9} {build_s:>7.2f} {build_mem / 1e6:>9.0f} "
                    f"{save_s:>7.2f} {save_median:>7.2f} {size / save_s / 1e6:>9.0f} "
                    f"{save_mem / 1e6:>9.0f} "
                    f"{load_s:>7.2f} {size / load_s / 1e6:>9.0f} {load_mem / 1e6:>9.0f}",
                    flush=True,
                )
    for ours in ("onnxcraft", "onnxcraft-ir"):
        if (ours, "external") in rates and ("onnx_ir", "external") in rates:
            ratio = rates[ours, "external"] / rates["onnx_ir", "external"]
            print(f"{ours} external save rate vs onnx_ir: {ratio:.2f}x")
        if (ours, "inline") in rates and ("onnx", "inline") in rates:
            ratio = rates[ours, "inline"] / rates["onnx", "inline"]
            print(f"{ours} inline save rate vs onnx: {ratio:.2f}x")


if __name__ == "__main__":
    main()
