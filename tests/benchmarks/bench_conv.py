"""Convolution benchmark: one Conv (+ bias + Relu) at a time, the shapes of the zoo's CNNs,
by the kernel as written, by each prepared layout (``ops/conv/prepared.py``) and by
onnxruntime running the same one-node model, one thread each (numpy's BLAS too).

    python tests/benchmarks/bench_conv.py [--repeat 7] [--threads 1] [--batches 1,8]

Every contender is warmed up, then they run in turn (fair.py); the table gives the median
(best) microseconds of each and, in brackets, the layout ``choose_layout`` picks for the
shape. This is where the choice of layouts comes from: re-run it on another machine before
changing ``choose_layout``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import numpy as np

import onnxcraft as oc
from onnxcraft.ops.conv.kernels import conv
from onnxcraft.ops.conv.prepared import PreparedConv, prepare_conv
from onnxcraft.opset.ai.onnx import v21 as op

# (input channels, size, output channels, kernel, stride, group): the zoo's convolutions
SHAPES = [
    (3, 224, 64, 7, 2, 1),  # ResNet, DenseNet, Inception stem
    (64, 56, 64, 3, 1, 1),  # ResNet
    (256, 14, 256, 3, 1, 1),
    (512, 7, 512, 3, 1, 1),
    (128, 56, 128, 3, 2, 1),
    (64, 56, 256, 1, 1, 1),
    (1024, 14, 256, 1, 1, 1),
    (256, 56, 512, 1, 2, 1),
    (128, 56, 32, 3, 1, 1),  # DenseNet
    (128, 14, 32, 3, 1, 1),
    (64, 56, 192, 3, 1, 1),  # Inception
    (32, 28, 96, 5, 1, 1),
    (16, 55, 64, 3, 1, 1),  # SqueezeNet
    (512, 13, 1000, 1, 1, 1),
    (116, 14, 116, 1, 1, 1),  # ShuffleNet
    (116, 14, 116, 3, 1, 116),
    (116, 28, 116, 3, 2, 116),
    (58, 28, 58, 3, 1, 58),
    (232, 7, 232, 3, 1, 232),
    (232, 14, 232, 3, 2, 232),
    (24, 56, 24, 3, 2, 24),
    (58, 56, 58, 3, 2, 58),
    (3, 224, 24, 3, 2, 1),  # ShuffleNet, SqueezeNet stems
    (3, 224, 64, 3, 2, 1),
    (32, 112, 32, 3, 1, 32),  # MobileNet's depthwise, wider than the banded products go
]
LAYOUTS = ("taps", "rows", "winograd", "winograd4", "flat", "im2col", "phases", "depthwise")


def applies(layout: str, kernel: int, stride: int, group: int) -> bool:
    if layout in ("winograd", "winograd4"):
        return (kernel, stride, group) == (3, 1, 1)
    if layout == "depthwise":
        return group > 1
    return layout in ("flat", "im2col", "phases") or (stride == 1 and group == 1)


def forced(
    weight: np.ndarray, bias: np.ndarray, attrs: dict[str, Any], x: np.ndarray, layout: str
) -> Any:
    prepared = prepare_conv(weight, bias, attrs, relu=lambda y: y)
    assert isinstance(prepared, PreparedConv)
    prepared(x)
    key = x.shape[1:]
    prepared._layouts[key] = type(prepared._layouts[key])(prepared._layouts[key].geom, layout)
    return lambda: prepared(x)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batches", default="1")
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(args.threads), ["onnxruntime"]))
    print(f"| shape | written | {' | '.join(LAYOUTS)} | onnxruntime | chosen / ort |")
    print("|---|---|" + "---|" * len(LAYOUTS) + "---|---|")
    rng = np.random.default_rng(0)
    for batch in (int(b) for b in args.batches.split(",")):
        for c, size, m, k, stride, group in SHAPES:
            x = rng.standard_normal((batch, c, size, size)).astype(np.float32)
            w = (rng.standard_normal((m, c // group, k, k)) * 0.1).astype(np.float32)
            b = rng.standard_normal(m).astype(np.float32)
            attrs: dict[str, Any] = {"pads": [k // 2] * 4, "strides": [stride] * 2, "group": group}
            runs = {"written": lambda x=x, w=w, b=b, a=attrs: np.maximum(conv(x, w, b, **a), 0)}
            for layout in LAYOUTS:
                if applies(layout, k, stride, group):
                    runs[layout] = forced(w, b, attrs, x, layout)
            chosen = prepare_conv(w, b, attrs)
            assert chosen is not None
            chosen(x)
            name = chosen._layouts[x.shape[1:]].name
            image = oc.arg("X", np.float32, x.shape)
            model = oc.build([image], {"Y": op.Relu(op.Conv(image, w, b, **attrs))})
            session = fair.ort_session(model.SerializeToString(), args.threads)
            runs["onnxruntime"] = lambda s=session, x=x: s.run(None, {"X": x})
            times = fair.race(runs, args.repeat)
            cells = [
                f"{times[n].median * 1e6:.0f} ({times[n].best * 1e6:.0f})" if n in times else "-"
                for n in ("written", *LAYOUTS, "onnxruntime")
            ]
            ratio = times[name].median / times["onnxruntime"].median
            shape = f"{batch}x{c}x{size}² → {m}, {k}x{k} s{stride} g{group}"
            print(f"| {shape} | {' | '.join(cells)} | {ratio:.2f}x [{name}] |", flush=True)


if __name__ == "__main__":
    main()
