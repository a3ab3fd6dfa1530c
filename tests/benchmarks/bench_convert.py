"""Version conversion benchmark: oc.convert_version next to onnx.version_converter.

    python tests/benchmarks/bench_convert.py [--repeat 5]

A ResNet-50-sized model (53 convolutions with BatchNormalization, about 25.6 M weights) built
with the DSL at opset 21, converted to 13 and back to 21 by each converter, from the same
serialized model. Warmed up, the converters alternated, median and best of ``--repeat``, one
thread. Target (issue 12): no slower than onnx's converter. onnx's converter refuses both
downgrades (no adapter for BatchNormalization 15 -> 14, nor Relu 14 -> 13); upward both start
from the opset-13 model onnxcraft wrote. A second model folds the normalization into the
convolutions.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op

RNG = np.random.default_rng(0)


def _weights(*shape: int) -> np.ndarray:
    return (RNG.standard_normal(shape) * 0.01).astype(np.float32)


FOLDED = False  # batch normalization folded into the convolutions' biases


def _conv_bn(x: oc.Var, cin: int, cout: int, k: int, stride: int = 1, relu: bool = True) -> oc.Var:
    pad = k // 2
    weights = _weights(cout, cin, k, k)
    if FOLDED:
        bias = np.zeros(cout, np.float32)
        y = op.Conv(x, weights, bias, strides=[stride, stride], pads=[pad] * 4)
    else:
        y = op.Conv(x, weights, strides=[stride, stride], pads=[pad] * 4)
        y = op.BatchNormalization(
            y, np.ones(cout, np.float32), np.zeros(cout, np.float32),
            np.zeros(cout, np.float32), np.ones(cout, np.float32),
        )[0]  # fmt: skip
    return op.Relu(y) if relu else y


def resnet50() -> Any:
    x = oc.arg("image", np.float32, ("N", 3, 224, 224))
    y = _conv_bn(x, 3, 64, 7, 2)
    y = op.MaxPool(y, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])[0]
    cin = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for block in range(blocks):
            s = stride if block == 0 else 1
            out = width * 4
            h = _conv_bn(y, cin, width, 1)
            h = _conv_bn(h, width, width, 3, s)
            h = _conv_bn(h, width, out, 1, relu=False)
            skip = _conv_bn(y, cin, out, 1, s, relu=False) if block == 0 else y
            y = op.Relu(op.Add(h, skip))
            cin = out
    y = op.Flatten(op.GlobalAveragePool(y))
    y = op.Softmax(op.Gemm(y, _weights(1000, 2048), np.zeros(1000, np.float32), transB=1))
    return oc.build([x], {"probs": y})


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    global FOLDED
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for FOLDED in (False, True):
        _measure(args.repeat)


def _measure(repeat: int) -> None:
    import onnx
    from onnx import version_converter

    data = resnet50().SerializeToString()
    kind = "BatchNormalization folded into Conv" if FOLDED else "Conv + BatchNormalization"
    print(f"\nResNet-50 ({kind}): {len(data) / 1e6:.1f} MB serialized")
    theirs_21 = onnx.load_from_string(data)
    ours_13 = oc.convert_version(data, 13)
    runs: dict[str, Callable[[], Any]] = {
        "onnxcraft 21->13": lambda: oc.convert_version(data, 13),
        "onnxcraft 13->21": lambda: oc.convert_version(ours_13, 21),
    }
    # Upward, both start from the opset-13 model onnxcraft wrote (onnx's cannot write it).
    theirs_13 = onnx.load_from_string(ours_13.SerializeToString())
    runs["onnx      13->21"] = lambda: version_converter.convert_version(theirs_13, 21)
    try:
        version_converter.convert_version(theirs_21, 13)
    except RuntimeError as exc:
        print(f"onnx's converter refuses 21->13: {str(exc).splitlines()[0][-70:]}")
    else:
        runs["onnx      21->13"] = lambda: version_converter.convert_version(theirs_21, 13)
    for fn in runs.values():  # warm-up
        fn()
    times: dict[str, list[float]] = {name: [] for name in sorted(runs, key=lambda n: n[-6:])}
    for _ in range(repeat):
        for name, measured in times.items():  # alternated
            measured.append(_timed(runs[name]))
    for name, measured in times.items():
        print(f"{name}: median {statistics.median(measured) * 1e3:8.1f} ms, "
              f"best {min(measured) * 1e3:8.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
