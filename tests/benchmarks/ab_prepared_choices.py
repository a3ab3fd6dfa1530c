"""The prepared convolutions' tuned choices, each against its alternative, in one process.

    python tests/benchmarks/ab_prepared_choices.py [--rounds 31] [--batches 1,8]
                                                   [--only winograd,bands,side,winograd_side,
                                                           winograd4]

Every choice is a module constant of ``ops/conv/prepared.py`` (or a layout forced, for
Winograd); one ``PreparedConv`` runs with the constant as it is and as it would otherwise
be, the two alternated round by round. The table gives median CPU milliseconds of each and
the median over rounds of their ratio (steadier than a ratio of medians on a shared
machine), one thread, numpy's BLAS pinned (fair.py):

- ``winograd``: the layout chosen (``_WINOGRAD_CHANNELS``) against the other of Winograd's
  F(2x2, 3x3) and the rows layout (against F(2x2, 3x3) where F(4x4, 3x3) is chosen), on
  3x3 convolutions of 128 and 256 channels;
- ``bands``: the phases layout's bands of 2^19 values against 2^17 on the 7x7 stem
  (``_PHASES_BAND_VALUES``);
- ``side``: the batch's images side by side in one product against a product per image
  (``_SIDE_BY_SIDE_POSITIONS``), the 7x7 stages' convolutions (batch 1 is left out);
- ``winograd_side``: Winograd's images of a few dozen tiles side by side in its 16 products
  against one image at a time (``_WINOGRAD_SIDE_BY_SIDE_TILES``; batch 1 is left out);
- ``winograd4``: Winograd's F(4x4, 3x3) against the layout chosen before it (at 54b4cd0),
  and against F(2x2, 3x3) from 256 channels, on every 3x3 stride-1 convolution of the zoo's
  models (ResNet-50, DenseNet-121, BN-Inception, SqueezeNet); "as it is" is F(4x4, 3x3).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import numpy as np

from onnxcraft.ops.conv import prepared as module
from onnxcraft.ops.conv.prepared import PreparedConv

# (input channels, size, output channels, kernel, stride, residual Add)
WINOGRAD = [(128, 28, 128, 3, 1, False), (256, 14, 256, 3, 1, False), (256, 28, 256, 3, 1, False)]
BANDS = [(3, 224, 64, 7, 2, False)]
SIDE = [(512, 7, 2048, 1, 1, True), (2048, 7, 512, 1, 1, False), (512, 7, 512, 3, 1, False)]
SIDE += [(512, 14, 512, 3, 2, False), (1024, 14, 2048, 1, 2, False), (232, 7, 232, 1, 1, False)]
SIDE += [(128, 7, 32, 3, 1, False)]  # DenseNet's, in the taps layout
SIDE += [(1024, 14, 256, 1, 1, False)]  # 14 x 14: left to the product per image
# Winograd's 14 x 14 outputs (49 tiles), and 28 x 28 (196 tiles: one image at a time either way)
WINOGRAD_SIDE = [(256, 14, 256, 3, 1, False), (512, 14, 512, 3, 1, False)]
WINOGRAD_SIDE += [(256, 28, 256, 3, 1, False)]
# Every 3x3 stride-1 shape of the zoo's models, with the layout chosen for it at 54b4cd0
WINOGRAD4 = [
    ((64, 56, 64, 3, 1, False), "rows"),  # ResNet-50
    ((128, 28, 128, 3, 1, False), "rows"),
    ((256, 14, 256, 3, 1, False), "winograd"),
    ((512, 7, 512, 3, 1, False), "im2col"),
    ((128, 56, 32, 3, 1, False), "taps"),  # DenseNet-121
    ((128, 28, 32, 3, 1, False), "taps"),
    ((128, 14, 32, 3, 1, False), "taps"),
    ((128, 7, 32, 3, 1, False), "taps"),
    ((64, 56, 192, 3, 1, False), "im2col"),  # BN-Inception
    ((96, 28, 128, 3, 1, False), "im2col"),
    ((128, 28, 192, 3, 1, False), "im2col"),
    ((96, 14, 208, 3, 1, False), "im2col"),
    ((112, 14, 224, 3, 1, False), "im2col"),
    ((128, 14, 256, 3, 1, False), "im2col"),
    ((144, 14, 288, 3, 1, False), "im2col"),
    ((160, 14, 320, 3, 1, False), "im2col"),
    ((160, 7, 320, 3, 1, False), "im2col"),
    ((192, 7, 384, 3, 1, False), "im2col"),
    ((16, 55, 64, 3, 1, False), "im2col"),  # SqueezeNet 1.1
    ((32, 27, 128, 3, 1, False), "im2col"),
    ((48, 13, 192, 3, 1, False), "im2col"),
    ((64, 13, 256, 3, 1, False), "im2col"),
]


def _conv(shape: tuple[int, ...], batch: int) -> tuple[PreparedConv, tuple[Any, ...]]:
    c, size, m, k, stride, add = shape
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, c, size, size)).astype(np.float32)
    w = (rng.standard_normal((m, c, k, k)) * 0.05).astype(np.float32)
    b = rng.standard_normal(m).astype(np.float32)
    attrs = {"pads": [k // 2] * 4, "strides": [stride] * 2}
    conv = PreparedConv(w, b, attrs, relu=np.maximum, add=np.add if add else None)
    out = (size + 2 * (k // 2) - k) // stride + 1
    residual = rng.standard_normal((batch, m, out, out)).astype(np.float32)
    return conv, (x, residual) if add else (x,)


def _constant(name: str, value: int) -> Callable[[], None]:
    return lambda: setattr(module, name, value)


def _layout(conv: PreparedConv, x: np.ndarray, name: str) -> Callable[[], None]:
    def force() -> None:
        key = x.shape[1:]
        conv._layouts[key] = type(conv._layouts[key])(conv._layouts[key].geom, name)

    return force


def _race(
    conv: PreparedConv,
    args: tuple[Any, ...],
    now: Callable[[], None],
    other: Callable[[], None],
    rounds: int,
) -> tuple[float, float, float]:
    for setup in (other, now):
        setup()
        conv(*args)  # warm-up, and each layout's arrays made
    times: dict[int, list[float]] = {0: [], 1: []}
    for r in range(rounds):
        for which in (0, 1) if r % 2 == 0 else (1, 0):
            (now if which == 0 else other)()
            start = time.process_time()
            conv(*args)
            times[which].append(time.process_time() - start)
    now()
    ratio = statistics.median(a / b for a, b in zip(times[0], times[1], strict=True))
    return statistics.median(times[0]) * 1e3, statistics.median(times[1]) * 1e3, ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--only", default="winograd,bands,side,winograd_side,winograd4")
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(1)))
    print("| choice | shape | batch | as it is ms | the other ms | as it is / the other |")
    print("|---|---|---|---|---|---|")
    chosen = args.only.split(",")
    for batch in (int(b) for b in args.batches.split(",")):
        cases: list[tuple[str, tuple[int, ...]]] = []
        for name, shapes in (("winograd", WINOGRAD), ("bands", BANDS)):
            cases += [(name, s) for s in shapes if name in chosen]
        if "winograd4" in chosen:
            for shape, before in WINOGRAD4:
                cases.append((f"winograd4 vs {before}", shape))
                if before != "winograd" and min(shape[0], shape[2]) >= 256:
                    cases.append(("winograd4 vs winograd", shape))
        if batch > 1 and "side" in chosen:
            cases += [("side", s) for s in SIDE]
        if batch > 1 and "winograd_side" in chosen:
            cases += [("winograd_side", s) for s in WINOGRAD_SIDE]
        for name, shape in cases:
            conv, call = _conv(shape, batch)
            conv(*call)
            if name == "winograd":  # the layout chosen against the other of the two
                picked = conv._layouts[call[0].shape[1:]].name
                now = _layout(conv, call[0], picked)
                other = _layout(conv, call[0], "rows" if picked == "winograd" else "winograd")
                name = f"winograd ({picked} chosen)"
            elif name.startswith("winograd4 vs "):
                now = _layout(conv, call[0], "winograd4")
                other = _layout(conv, call[0], name.removeprefix("winograd4 vs "))
            elif name == "winograd_side":
                _layout(conv, call[0], "winograd")()
                tiles = module._WINOGRAD_SIDE_BY_SIDE_TILES
                now = _constant("_WINOGRAD_SIDE_BY_SIDE_TILES", tiles)
                other = _constant("_WINOGRAD_SIDE_BY_SIDE_TILES", 0)
            elif name == "bands":
                now = _constant("_PHASES_BAND_VALUES", module._PHASES_BAND_VALUES)
                other = _constant("_PHASES_BAND_VALUES", 1 << 17)
            else:
                now = _constant("_SIDE_BY_SIDE_POSITIONS", module._SIDE_BY_SIDE_POSITIONS)
                other = _constant("_SIDE_BY_SIDE_POSITIONS", 0)
            a, b, ratio = _race(conv, call, now, other, args.rounds)
            c, size, m, k, stride, add = shape
            label = f"{c}x{size}² → {m}, {k}x{k} s{stride}" + (" + Add" if add else "")
            print(f"| {name} | {label} | {batch} | {a:.3f} | {b:.3f} | {ratio:.3f}x |", flush=True)


if __name__ == "__main__":
    main()
