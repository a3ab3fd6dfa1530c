"""How close ``onnxcraft.ops.special.erf`` is to ``math.erf`` (run by hand, a few minutes).

    python tests/ops/measure_erf.py [--float32]

float64: the largest difference in ulp over dense grids (the whole range, the tails,
subnormals, the two forms' meeting point), and how many values differ at all.
``--float32`` also walks every positive float32 below 4 (erf of a larger float32 rounds to 1
in float32), compares erf rounded to float32 with math.erf rounded to float32, and prints
every input where they differ: the double-rounding cases, where the exact value lies within
an ulp or two of float64 from the middle of two float32 neighbours.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from onnxcraft.ops.special import erf

_reference = np.frompyfunc(math.erf, 1, 1)


def reference(x: np.ndarray) -> np.ndarray:
    return np.asarray(_reference(x), dtype=np.float64)


def ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    return np.abs(got - want) / np.spacing(np.abs(want))


def float64_grids() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(17)
    return {
        "[-7, 7], step 7e-6": np.linspace(-7.0, 7.0, 2_000_001),
        "tiny and subnormal": np.concatenate(
            [np.geomspace(5e-324, 1e-5, 200_001), -np.geomspace(5e-324, 1e-5, 20_001)]
        ),
        "0.84375 +- 1e-3": 0.84375 + np.linspace(-1e-3, 1e-3, 200_001),
        "tails [5, 1e308]": np.geomspace(5.0, 1e308, 100_001),
        "normal(0, 2), 1e6 draws": rng.standard_normal(1_000_000) * 2.0,
    }


def measure_float64() -> None:
    print("| grid | values | max ulp | differing |")
    print("|---|---|---|---|")
    for name, x in float64_grids().items():
        u = ulps(erf(x), reference(x))
        print(f"| {name} | {x.size} | {u.max():.2f} | {int(np.count_nonzero(u))} |")


def measure_float32() -> None:
    start = time.perf_counter()
    top = np.float32(4.0).view(np.uint32)
    differing: list[float] = []
    checked = 0
    step = 1 << 22
    for first in range(1, int(top), step):
        bits = np.arange(first, min(first + step, int(top)), dtype=np.uint32)
        x = bits.view(np.float32).astype(np.float64)
        ours = erf(x).astype(np.float32)
        theirs = reference(x).astype(np.float32)
        bad = np.flatnonzero(ours != theirs)
        differing.extend(float(v) for v in x[bad])
        checked += x.size
    print(
        f"float32: {checked} positive values below 4 checked in {time.perf_counter() - start:.0f}"
        f" s; {len(differing)} differ from math.erf rounded to float32"
    )
    for value in differing:
        print(f"  x = {value!r} ({np.float32(value).view(np.uint32):#010x})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--float32", action="store_true", help="every float32 below 4 too")
    args = parser.parse_args()
    measure_float64()
    if args.float32:
        measure_float32()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
