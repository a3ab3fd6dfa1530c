"""What a residual Add costs beside its convolution's product, and what a product that
accumulates into its output would save.

    python tests/benchmarks/blas_accumulate.py [--repeat 7] [--threads 1]

A ResNet block ends with a 1x1 convolution, the residual Add and a Relu. numpy's
``matmul`` writes its product into a new array (or ``out=``), so the evaluator adds the
residual in a pass of its own: ``matmul``, ``add``, ``maximum``. BLAS's ``sgemm`` can
accumulate instead (C = A B + beta C with beta = 1): the product written onto the residual,
then the Relu. numpy does not expose that, so this script calls the CBLAS interface of the
OpenBLAS numpy's wheels carry, through ctypes, on ResNet-50's four expanding shapes at
batch 1 (the bias riding in the product as a row of ones, as the evaluator's does). It is a
measurement of what numpy's API costs, not a path the library takes: the library's name,
symbols and integer width are details of numpy's packaging (``docs/evaluation-speed.md``).
Without such a library (numpy built against MKL or Accelerate, say) it says so and stops.
The two ways compute the same sums; the script checks they agree to float rounding.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair

# (input channels, output channels, positions): ResNet-50's last 1x1 of each stage, batch 1
_SHAPES = ((64, 256, 56 * 56), (128, 512, 28 * 28), (256, 1024, 14 * 14), (512, 2048, 7 * 7))
_ROW_MAJOR, _NO_TRANS = 101, 111


def _numpy_openblas_sgemm() -> Any | None:
    """``cblas_sgemm`` of the OpenBLAS numpy has loaded (its ILP64 build, as numpy's wheels
    carry), or None."""
    from threadpoolctl import threadpool_info

    for pool in threadpool_info():
        if pool.get("internal_api") != "openblas":
            continue
        library = ctypes.CDLL(pool["filepath"])
        for name in ("scipy_cblas_sgemm64_", "cblas_sgemm64_"):
            sgemm = getattr(library, name, None)
            if sgemm is not None:
                size, pointer = ctypes.c_int64, ctypes.c_void_p
                sgemm.argtypes = [ctypes.c_int] * 3 + [size] * 3 + [ctypes.c_float]
                sgemm.argtypes += [pointer, size, pointer, size, ctypes.c_float, pointer, size]
                sgemm.restype = None
                return sgemm
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=fair.MIN_REPEAT)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(args.threads)))
    sgemm = _numpy_openblas_sgemm()
    if sgemm is None:
        print("numpy's BLAS is not an ILP64 OpenBLAS with CBLAS: nothing to measure here")
        return
    print("| 1x1 convolution, batch 1 | matmul, add, Relu ms | sgemm onto it, Relu ms | ratio |")
    print("|---|---|---|---|")
    rng = np.random.default_rng(0)
    for channels, filters, positions in _SHAPES:
        x = rng.standard_normal((channels + 1, positions)).astype(np.float32)
        x[channels] = 1  # the row of ones: the bias is the weights' last column
        w = (rng.standard_normal((filters, channels + 1)) / np.sqrt(channels)).astype(np.float32)
        residual = rng.standard_normal((filters, positions)).astype(np.float32)
        out = np.empty_like(residual)
        onto = residual.copy()

        def with_numpy() -> None:
            np.matmul(w, x, out=out)
            np.add(out, residual, out=out)
            np.maximum(out, 0, out=out)

        def accumulating() -> None:  # onto a residual no other step reads, as a block's is
            sgemm(_ROW_MAJOR, _NO_TRANS, _NO_TRANS, filters, positions, channels + 1, 1.0,
                  w.ctypes.data, channels + 1, x.ctypes.data, positions, 1.0,
                  onto.ctypes.data, positions)  # fmt: skip
            np.maximum(onto, 0, out=onto)

        with_numpy()
        accumulating()
        assert np.abs(out - onto).max() <= 1e-5 * float(np.abs(out).max()), "they disagree"
        times = fair.race({"numpy": with_numpy, "sgemm": accumulating}, args.repeat)
        ours, theirs = times["numpy"], times["sgemm"]
        print(
            f"| {channels} -> {filters}, {positions} positions | {_ms(ours)} | {_ms(theirs)} | "
            f"{theirs.median / ours.median:.2f}x ({theirs.best / ours.best:.2f}x) |",
            flush=True,
        )


def _ms(timing: fair.Timing) -> str:
    return f"{timing.median * 1e3:.3f} ({timing.best * 1e3:.3f})"


if __name__ == "__main__":
    main()
