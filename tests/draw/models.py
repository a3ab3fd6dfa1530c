"""Models the picture tests and the drawing benchmark draw, built with the DSL."""

from __future__ import annotations

from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op


def _weights(*shape: int) -> np.ndarray:
    return np.zeros(shape, np.float32)


def _conv_bn(x: Any, cin: int, cout: int, k: int, stride: int = 1, relu: bool = True) -> Any:
    h = op.Conv(x, _weights(cout, cin, k, k), strides=(stride, stride), pads=(k // 2,) * 4)
    ones, zeros = np.ones(cout, np.float32), np.zeros(cout, np.float32)
    h = op.BatchNormalization(h, ones, zeros, zeros, ones).Y
    return op.Relu(h) if relu else h


def resnet50() -> Any:
    """ResNet-50's graph (bottleneck blocks 3, 4, 6, 3; batch normalisation not fused): 175
    nodes, 25.5 million parameters (zeros)."""
    x = oc.arg("image", np.float32, ("N", 3, 224, 224))
    h = _conv_bn(x, 3, 64, 7, 2)
    h = op.MaxPool(h, kernel_shape=(3, 3), strides=(2, 2), pads=(1, 1, 1, 1)).Y
    channels = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for block in range(blocks):
            step = stride if block == 0 else 1
            shortcut = h
            out = _conv_bn(h, channels, width, 1)
            out = _conv_bn(out, width, width, 3, step)
            out = _conv_bn(out, width, width * 4, 1, relu=False)
            if block == 0:
                shortcut = _conv_bn(h, channels, width * 4, 1, step, relu=False)
            h = op.Relu(op.Add(out, shortcut))
            channels = width * 4
    pooled = op.Flatten(op.GlobalAveragePool(h))
    logits = op.Gemm(pooled, _weights(channels, 1000), np.zeros(1000, np.float32))
    return oc.build([x], {"logits": op.Softmax(logits, axis=1)}, name="resnet50")


def transformer(layers: int, hidden: int = 64, heads: int = 4) -> Any:
    """A stack of ``layers`` encoder layers (attention and MLP, pre-norm residuals), 26 nodes
    each."""
    x = oc.arg("tokens", np.float32, ("B", "T", hidden))
    head = hidden // heads
    split = np.array([0, 0, heads, head], np.int64)
    merge = np.array([0, 0, hidden], np.int64)
    scale = np.float32(head**0.5)
    h = x
    ones, zeros = np.ones(hidden, np.float32), np.zeros(hidden, np.float32)
    for _ in range(layers):
        n = op.LayerNormalization(h, ones, zeros, axis=-1).Y
        q, k, v = (
            op.Transpose(
                op.Reshape(op.MatMul(n, _weights(hidden, hidden)), split), perm=(0, 2, 1, 3)
            )
            for _ in range(3)
        )
        scores = op.Softmax(
            op.Div(op.MatMul(q, op.Transpose(k, perm=(0, 1, 3, 2))), scale), axis=-1
        )
        attended = op.Reshape(op.Transpose(op.MatMul(scores, v), perm=(0, 2, 1, 3)), merge)
        h = op.Add(h, op.Add(op.MatMul(attended, _weights(hidden, hidden)), zeros))
        n = op.LayerNormalization(h, ones, zeros, axis=-1).Y
        up = op.Relu(
            op.Add(op.MatMul(n, _weights(hidden, 4 * hidden)), np.zeros(4 * hidden, np.float32))
        )
        h = op.Add(h, op.Add(op.MatMul(up, _weights(4 * hidden, hidden)), zeros))
    return oc.build([x], {"encoded": h}, name=f"transformer_{layers}")
