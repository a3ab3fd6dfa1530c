"""The im2col's window copies: one copy per tap against one copy of every tap's windows.

    python tests/benchmarks/ab_tap_copies.py [--rounds 31] [--batch 1]

The prepared convolutions' im2col layout (``ops/conv/prepared.py``) copies the windows of
the padded images into its working array. It made one numpy copy per tap (25 for a 5x5
kernel), each through a sliced view; it now makes one copy through a strided view of all the
taps' windows (``_tap_windows``). Both are run here on the zoo's convolutions that take the
im2col layout (BN-Inception's 5x5 ones, SqueezeNet's stem and 3x3 expands, ShuffleNet's
stem, ResNet-50's 3x3 stride-2 ones), alternated round by round, CPU time, one thread; the
table gives median microseconds and the median over rounds of the ratio. Both fill the
same array with the same values (checked).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import numpy as np

from onnxcraft.ops.conv.prepared import _tap_windows
from onnxcraft.ops.im2col import WindowGeometry

# (channels, input size, kernel, stride, padding, where)
_SHAPES = [
    (16, 28, 5, 1, 2, "BN-Inception 3a, 5x5"),
    (32, 28, 5, 1, 2, "BN-Inception 3b, 5x5"),
    (16, 14, 5, 1, 2, "BN-Inception 4a, 5x5"),
    (32, 14, 5, 1, 2, "BN-Inception 4d/4e, 5x5"),
    (48, 7, 5, 1, 2, "BN-Inception 5b, 5x5"),
    (3, 224, 3, 2, 0, "SqueezeNet stem"),
    (16, 55, 3, 1, 1, "SqueezeNet fire2/3 expand"),
    (32, 27, 3, 1, 1, "SqueezeNet fire4/5 expand"),
    (64, 13, 3, 1, 1, "SqueezeNet fire8/9 expand"),
    (3, 224, 3, 2, 1, "ShuffleNet stem"),
    (128, 56, 3, 2, 1, "ResNet-50 stage 2, stride 2"),
    (256, 28, 3, 2, 1, "ResNet-50 stage 3, stride 2"),
    (512, 14, 3, 2, 1, "ResNet-50 stage 4, stride 2"),
]


def _geometry(size: int, kernel: int, stride: int, pad: int) -> WindowGeometry:
    out = (size + 2 * pad - kernel) // stride + 1
    return WindowGeometry(
        kernel=(kernel, kernel),
        strides=(stride, stride),
        dilations=(1, 1),
        pads_begin=(pad, pad),
        pads_end=(pad, pad),
        out_shape=(out, out),
        extra_end=(0, 0),
    )


def _tap_by_tap(windows: np.ndarray, source: np.ndarray, geom: WindowGeometry) -> None:
    """The copies as the layout made them before: one per tap."""
    (kh, kw), (sh, sw) = geom.kernel, geom.strides
    ho, wo = geom.out_shape
    for i in range(kh):
        for j in range(kw):
            windows[:, :, :, i, j] = source[
                ..., i : i + (ho - 1) * sh + 1 : sh, j : j + (wo - 1) * sw + 1 : sw
            ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--batch", type=int, default=1)
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(1)))
    print("| convolution | shape | per tap µs | all taps µs | all / per tap |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    n = args.batch
    for c, size, k, s, p, where in _SHAPES:
        geom = _geometry(size, k, s, p)
        ho, wo = geom.out_shape
        padded = rng.standard_normal((n, 1, c, size + 2 * p, size + 2 * p)).astype(np.float32)
        cols = np.empty((n, 1, c * k * k + 1, ho * wo), np.float32)
        windows = cols[:, :, : c * k * k].reshape(n, 1, c, k, k, ho, wo)

        def all_taps() -> None:
            windows[...] = _tap_windows(padded, geom)

        _tap_by_tap(windows, padded, geom)
        before = windows.copy()
        all_taps()
        assert np.array_equal(before, windows)
        times: dict[str, list[float]] = {"tap": [], "all": []}
        for r in range(args.rounds + 1):
            for name in ("tap", "all") if r % 2 else ("all", "tap"):
                start = time.process_time()
                for _ in range(10):
                    if name == "tap":
                        _tap_by_tap(windows, padded, geom)
                    else:
                        all_taps()
                if r:
                    times[name].append((time.process_time() - start) / 10)
        ratio = statistics.median(a / b for a, b in zip(times["all"], times["tap"], strict=True))
        tap, every = (statistics.median(times[key]) * 1e6 for key in ("tap", "all"))
        shape = f"{c} x {size}², {k}x{k} s{s}"
        print(f"| {where} | {shape} | {tap:.1f} | {every:.1f} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
