"""Text form benchmark: ``oc.to_text`` and ``oc.parse`` on a ResNet-50-sized model, next to
onnx's printer and parser on the same model.

The model is ResNet-50's layout built with the DSL: a 7x7 stem, bottleneck stages of 3, 4, 6
and 3 blocks (64..2048 channels), Conv + BatchNormalization + Relu, pooling and a 1000-way
Gemm; 25.6 M weights (real sizes), 53 Conv nodes, about 180 nodes in all.

- to_text: onnxcraft elides the large tensors (its default); onnx's printer has no elision and
  writes every weight, so it is shown both on that model and on the structure-only variant
  below, where both print the same thing.
- parse: elided text does not parse (by design), and full text of 25.6 M weights is about
  300 MB of decimals, which no one reads as text. So both parsers read the text of the same
  network with the weights as typed graph inputs (every node, attribute and type, no tensor
  values); and the throughput of tensor values is measured on its own, on 1 M floats.

Each contender is warmed up, then the contenders alternate for 5 rounds; median and best of
5, one thread (threadpoolctl). Run: ``python tests/benchmarks/bench_text.py``. Target (issue
13): to_text and parse each under 1 s.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import numpy as np
import onnx
import onnx.parser
import onnx.printer

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.proto import serde as _serde  # noqa: F401  (IR models' SerializeToString)

RNG = np.random.default_rng(0)
ROUNDS = 5


def _weights(shape: tuple[int, ...], as_inputs: list[oc.Var] | None) -> Any:
    if as_inputs is not None:
        var = oc.arg(f"w{len(as_inputs)}", np.float32, shape)
        as_inputs.append(var)
        return var
    return (RNG.standard_normal(shape) * 0.05).astype(np.float32)


def _conv_bn(
    x: oc.Var, c_in: int, c_out: int, k: int, stride: int, inputs: list[oc.Var] | None, relu: bool
) -> oc.Var:
    y = op.Conv(
        x,
        _weights((c_out, c_in, k, k), inputs),
        kernel_shape=(k, k),
        pads=(k // 2,) * 4,
        strides=(stride, stride),
    )
    params = [_weights((c_out,), inputs) for _ in range(4)]
    y = op.BatchNormalization(y, *params).Y
    return op.Relu(y) if relu else y


def resnet50(weights_as_inputs: bool = False) -> oc.ir.Model:
    inputs: list[oc.Var] | None = [] if weights_as_inputs else None
    x = oc.arg("x", np.float32, ("N", 3, 224, 224))
    h = _conv_bn(x, 3, 64, 7, 2, inputs, True)
    h = op.MaxPool(h, kernel_shape=(3, 3), strides=(2, 2), pads=(1, 1, 1, 1)).Y
    channels = 64
    for blocks, width, stride in ((3, 64, 1), (4, 128, 2), (6, 256, 2), (3, 512, 2)):
        for block in range(blocks):
            s = stride if block == 0 else 1
            shortcut = h
            y = _conv_bn(h, channels, width, 1, 1, inputs, True)
            y = _conv_bn(y, width, width, 3, s, inputs, True)
            y = _conv_bn(y, width, width * 4, 1, 1, inputs, False)
            if block == 0:
                shortcut = _conv_bn(h, channels, width * 4, 1, s, inputs, False)
            h = op.Relu(op.Add(y, shortcut))
            channels = width * 4
    pooled = op.Flatten(op.GlobalAveragePool(h))
    logits = op.Gemm(pooled, _weights((channels, 1000), inputs), _weights((1000,), inputs))
    return oc.build_ir([x, *(inputs or [])], {"logits": logits}, name="resnet50")


def compare(title: str, contenders: dict[str, Callable[[], object]]) -> None:
    for fn in contenders.values():
        fn()  # warm up
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(ROUNDS):
        for name, fn in contenders.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    print(title)
    for name, measured in times.items():
        print(
            f"  {name:<34} median {statistics.median(measured) * 1e3:9.1f} ms   "
            f"best {min(measured) * 1e3:9.1f} ms"
        )


def main() -> None:
    try:
        from threadpoolctl import threadpool_limits

        limit: Any = threadpool_limits(1)
    except ImportError:
        limit = nullcontext()
    with limit:
        model = resnet50()
        proto = onnx.ModelProto.FromString(model.SerializeToString())
        weights = sum(t.array().size for t in model.graph.initializers)
        print(
            f"ResNet-50-sized model: {len(model.graph.nodes)} nodes, "
            f"{len(model.graph.initializers)} initializers, {weights / 1e6:.1f} M weights"
        )
        compare(
            "to_text, real weights (onnxcraft elides them; onnx's printer writes them all)",
            {
                "oc.to_text (elided)": lambda: oc.to_text(model),
                "onnx.printer.to_text (full)": lambda: onnx.printer.to_text(proto),
            },
        )
        structure = resnet50(weights_as_inputs=True)
        structure_proto = onnx.ModelProto.FromString(structure.SerializeToString())
        ours, theirs = oc.to_text(structure), onnx.printer.to_text(structure_proto)
        compare(
            f"to_text, weights as inputs ({len(ours) / 1e3:.0f} kB of text)",
            {
                "oc.to_text": lambda: oc.to_text(structure),
                "onnx.printer.to_text": lambda: onnx.printer.to_text(structure_proto),
            },
        )
        compare(
            "parse, weights as inputs (each parser on its own printer's text)",
            {
                "oc.parse": lambda: oc.parse(ours),
                "onnx.parser.parse_model": lambda: onnx.parser.parse_model(theirs),
            },
        )
        values = RNG.standard_normal(1_000_000).astype(np.float32)
        inits = oc.build_ir(
            [x := oc.arg("x", np.float32, (1_000_000,))], {"y": op.Add(x, values)}, name="values"
        )
        full = oc.to_text(inits, full_tensors=True)
        compare(
            f"parse, 1 M float32 values ({len(full) / 1e6:.1f} MB of text)",
            {
                "oc.parse": lambda: oc.parse(full),
                "onnx.parser.parse_model": lambda: onnx.parser.parse_model(full),
            },
        )
        compare(
            "to_text, 1 M float32 values in full",
            {
                "oc.to_text(full_tensors=True)": lambda: oc.to_text(inits, full_tensors=True),
                "onnx.printer.to_text": lambda: onnx.printer.to_text(
                    onnx.ModelProto.FromString(inits.SerializeToString())
                ),
            },
        )


if __name__ == "__main__":
    main()
