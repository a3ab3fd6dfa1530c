"""Real-size models built with the DSL, random weights: what the benchmarks measure on.

The architectures follow the published networks layer for layer (channel counts, strides,
kernel sizes, block counts), with BatchNormalization kept as its own node as exported models
have it:

- ``resnet50``: ResNet-50 (bottleneck blocks 3-4-6-3), 25.6 M parameters.
- ``densenet121``: DenseNet-121 (dense blocks 6-12-24-16, growth 32), every layer
  concatenating all the features before it, as exported models do.
- ``inception``: BN-Inception / GoogLeNet (modules 3a-5b, a BatchNormalization after every
  convolution).
- ``squeezenet``: SqueezeNet 1.1 (fire modules).
- ``shufflenet``: ShuffleNet v2 1.0x (grouped and depthwise convolutions, channel split and
  shuffle through Reshape/Transpose).
- ``transformer``: a BERT-base encoder (12 layers, hidden 768, 12 heads, FFN 3072, sequence
  128; LayerNormalization, Gelu).

``MODELS`` maps each name to a function ``(batch) -> model``; ``CNNS`` lists the image models.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op

__all__ = ["CNNS", "MODELS", "feeds_for"]


class _Weights:
    """Random weights, scaled so that activations stay in range through deep stacks."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def conv(self, c_out: int, c_in: int, k: int) -> np.ndarray:
        scale = np.sqrt(2.0 / (c_in * k * k))
        return (self.rng.standard_normal((c_out, c_in, k, k)) * scale).astype(np.float32)

    def vector(self, n: int, low: float = -0.1, high: float = 0.1) -> np.ndarray:
        return self.rng.uniform(low, high, n).astype(np.float32)

    def matrix(self, rows: int, columns: int) -> np.ndarray:
        scale = np.sqrt(1.0 / rows)
        return (self.rng.standard_normal((rows, columns)) * scale).astype(np.float32)


def _bn(w: _Weights, x: oc.Var, channels: int, gamma: tuple[float, float] = (0.5, 1.5)) -> oc.Var:
    return op.BatchNormalization(
        x,
        w.vector(channels, *gamma),
        w.vector(channels),
        w.vector(channels),
        w.vector(channels, 0.5, 1.5),
    ).Y


def _conv(
    w: _Weights,
    x: oc.Var,
    c_in: int,
    c_out: int,
    k: int,
    stride: int = 1,
    *,
    group: int = 1,
    bias: bool = False,
) -> oc.Var:
    pad = k // 2
    return op.Conv(
        x,
        w.conv(c_out, c_in // group, k),
        w.vector(c_out) if bias else None,
        kernel_shape=(k, k),
        strides=(stride, stride),
        pads=(pad, pad, pad, pad),
        group=group,
    )


def _conv_bn(
    w: _Weights,
    x: oc.Var,
    c_in: int,
    c_out: int,
    k: int,
    stride: int = 1,
    *,
    group: int = 1,
    gamma: tuple[float, float] = (0.5, 1.5),
) -> oc.Var:
    return _bn(w, _conv(w, x, c_in, c_out, k, stride, group=group), c_out, gamma)


def _conv_bn_relu(w: _Weights, x: oc.Var, c_in: int, c_out: int, k: int, stride: int = 1) -> oc.Var:
    return op.Relu(_conv_bn(w, x, c_in, c_out, k, stride))


def _max_pool(x: oc.Var, k: int = 3, stride: int = 2, pad: int = 1) -> oc.Var:
    return op.MaxPool(x, kernel_shape=(k, k), strides=(stride, stride), pads=(pad,) * 4).Y


def _classifier(w: _Weights, x: oc.Var, channels: int, classes: int = 1000) -> oc.Var:
    pooled = op.Flatten(op.GlobalAveragePool(x))
    return op.Gemm(pooled, w.matrix(channels, classes), w.vector(classes))


def _image(batch: int) -> oc.Var:
    return oc.arg("image", np.float32, (batch, 3, 224, 224))


# -- ResNet-50 ------------------------------------------------------------------------------------


def resnet50(batch: int = 1) -> Any:
    w = _Weights(50)
    x = _image(batch)
    h = _max_pool(_conv_bn_relu(w, x, 3, 64, 7, 2))
    channels = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for block in range(blocks):
            step = stride if block == 0 else 1
            out = width * 4
            y = _conv_bn_relu(w, h, channels, width, 1)
            y = _conv_bn_relu(w, y, width, width, 3, step)
            # a small last scale, as trained residual blocks have, keeps the sums in range
            y = _conv_bn(w, y, width, out, 1, gamma=(0.1, 0.3))
            shortcut = h if block > 0 else _conv_bn(w, h, channels, out, 1, step)
            h = op.Relu(op.Add(y, shortcut))
            channels = out
    return oc.build([x], {"logits": _classifier(w, h, channels)}, name="resnet50")


# -- DenseNet-121 ---------------------------------------------------------------------------------


def densenet121(batch: int = 1) -> Any:
    w = _Weights(121)
    x = _image(batch)
    h = _max_pool(_conv_bn_relu(w, x, 3, 64, 7, 2))
    channels, growth = 64, 32
    for index, layers in enumerate((6, 12, 24, 16)):
        features = [h]
        for _ in range(layers):
            joined = features[0] if len(features) == 1 else op.Concat(*features, axis=1)
            y = _conv(w, op.Relu(_bn(w, joined, channels)), channels, 4 * growth, 1)
            y = _conv(w, op.Relu(_bn(w, y, 4 * growth)), 4 * growth, growth, 3)
            features.append(y)
            channels += growth
        h = op.Concat(*features, axis=1)
        if index < 3:  # transition: halve the channels and the resolution
            h = _conv(w, op.Relu(_bn(w, h, channels)), channels, channels // 2, 1)
            channels //= 2
            h = op.AveragePool(h, kernel_shape=(2, 2), strides=(2, 2))
    h = op.Relu(_bn(w, h, channels))
    return oc.build([x], {"logits": _classifier(w, h, channels)}, name="densenet121")


# -- BN-Inception / GoogLeNet ---------------------------------------------------------------------

# (1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool projection) of modules 3a ... 5b
_INCEPTION = {
    "3a": (64, 96, 128, 16, 32, 32),
    "3b": (128, 128, 192, 32, 96, 64),
    "4a": (192, 96, 208, 16, 48, 64),
    "4b": (160, 112, 224, 24, 64, 64),
    "4c": (128, 128, 256, 24, 64, 64),
    "4d": (112, 144, 288, 32, 64, 64),
    "4e": (256, 160, 320, 32, 128, 128),
    "5a": (256, 160, 320, 32, 128, 128),
    "5b": (384, 192, 384, 48, 128, 128),
}


def inception(batch: int = 1) -> Any:
    w = _Weights(22)
    x = _image(batch)
    h = _max_pool(_conv_bn_relu(w, x, 3, 64, 7, 2))
    h = _conv_bn_relu(w, h, 64, 64, 1)
    h = _max_pool(_conv_bn_relu(w, h, 64, 192, 3))
    channels = 192
    for name, (c1, r3, c3, r5, c5, pp) in _INCEPTION.items():
        if name in ("4a", "5a"):
            h = _max_pool(h)
        branches = [
            _conv_bn_relu(w, h, channels, c1, 1),
            _conv_bn_relu(w, _conv_bn_relu(w, h, channels, r3, 1), r3, c3, 3),
            _conv_bn_relu(w, _conv_bn_relu(w, h, channels, r5, 1), r5, c5, 5),
            _conv_bn_relu(w, _max_pool(h, 3, 1, 1), channels, pp, 1),
        ]
        h = op.Concat(*branches, axis=1)
        channels = c1 + c3 + c5 + pp
    return oc.build([x], {"logits": _classifier(w, h, channels)}, name="inception")


# -- SqueezeNet 1.1 -------------------------------------------------------------------------------


def _fire(w: _Weights, x: oc.Var, c_in: int, squeeze: int, expand: int) -> oc.Var:
    s = op.Relu(_conv(w, x, c_in, squeeze, 1, bias=True))
    left = op.Relu(_conv(w, s, squeeze, expand, 1, bias=True))
    right = op.Relu(_conv(w, s, squeeze, expand, 3, bias=True))
    return op.Concat(left, right, axis=1)


def squeezenet(batch: int = 1) -> Any:
    w = _Weights(11)
    x = _image(batch)
    h = op.Relu(op.Conv(x, w.conv(64, 3, 3), w.vector(64), kernel_shape=(3, 3), strides=(2, 2)))
    h = op.MaxPool(h, kernel_shape=(3, 3), strides=(2, 2)).Y
    channels = 64
    for index, (squeeze, expand) in enumerate(
        ((16, 64), (16, 64), (32, 128), (32, 128), (48, 192), (48, 192), (64, 256), (64, 256))
    ):
        if index in (2, 4):
            h = op.MaxPool(h, kernel_shape=(3, 3), strides=(2, 2)).Y
        h = _fire(w, h, channels, squeeze, expand)
        channels = 2 * expand
    h = op.Relu(_conv(w, h, channels, 1000, 1, bias=True))
    logits = op.Flatten(op.GlobalAveragePool(h))
    return oc.build([x], {"probabilities": op.Softmax(logits, axis=1)}, name="squeezenet")


# -- ShuffleNet v2 1.0x ---------------------------------------------------------------------------


def _shuffle(x: oc.Var, batch: int, channels: int, size: int) -> oc.Var:
    """Interleave the two halves of the channels (Reshape, Transpose, Reshape)."""
    split = op.Reshape(x, np.array([batch, 2, channels // 2, size, size], np.int64))
    swapped = op.Transpose(split, perm=(0, 2, 1, 3, 4))
    return op.Reshape(swapped, np.array([batch, channels, size, size], np.int64))


def _depthwise_branch(w: _Weights, x: oc.Var, c_in: int, c_out: int, stride: int) -> oc.Var:
    y = op.Relu(_conv_bn(w, x, c_in, c_out, 1))
    y = _conv_bn(w, y, c_out, c_out, 3, stride, group=c_out)
    return op.Relu(_conv_bn(w, y, c_out, c_out, 1))


def shufflenet(batch: int = 1) -> Any:
    w = _Weights(2)
    x = _image(batch)
    h = _max_pool(_conv_bn_relu(w, x, 3, 24, 3, 2))
    channels, size = 24, 56
    for out, units in ((116, 4), (232, 8), (464, 4)):
        half = out // 2
        # the first unit halves the resolution, both branches seeing the whole input
        left = _conv_bn(w, h, channels, channels, 3, 2, group=channels)
        left = op.Relu(_conv_bn(w, left, channels, half, 1))
        right = _depthwise_branch(w, h, channels, half, 2)
        size //= 2
        h = _shuffle(op.Concat(left, right, axis=1), batch, out, size)
        for _ in range(units - 1):
            kept, worked = op.Split(h, np.array([half, half], np.int64), axis=1, num_outputs=None)
            worked = _depthwise_branch(w, worked, half, half, 1)
            h = _shuffle(op.Concat(kept, worked, axis=1), batch, out, size)
        channels = out
    h = _conv_bn_relu(w, h, channels, 1024, 1)
    return oc.build([x], {"logits": _classifier(w, h, 1024)}, name="shufflenet")


# -- Transformer encoder (BERT-base) --------------------------------------------------------------


def transformer(
    batch: int = 1, *, layers: int = 12, hidden: int = 768, heads: int = 12, sequence: int = 128
) -> Any:
    w = _Weights(768)
    x = oc.arg("embeddings", np.float32, (batch, sequence, hidden))
    head = hidden // heads
    split_heads = np.array([batch, sequence, heads, head], np.int64)
    merge_heads = np.array([batch, sequence, hidden], np.int64)
    scale = np.float32(1.0 / np.sqrt(head))
    h = x
    for _ in range(layers):
        q, k, v = (
            op.Transpose(
                op.Reshape(op.Add(op.MatMul(h, w.matrix(hidden, hidden)), w.vector(hidden)),
                           split_heads),
                perm=perm,
            )
            for perm in ((0, 2, 1, 3), (0, 2, 3, 1), (0, 2, 1, 3))
        )  # fmt: skip
        scores = op.Softmax(op.Mul(op.MatMul(q, k), scale), axis=-1)
        context = op.Reshape(op.Transpose(op.MatMul(scores, v), perm=(0, 2, 1, 3)), merge_heads)
        attended = op.Add(op.MatMul(context, w.matrix(hidden, hidden)), w.vector(hidden))
        h = op.LayerNormalization(
            op.Add(h, attended), w.vector(hidden, 0.9, 1.1), w.vector(hidden), axis=-1
        ).Y
        inner = op.Gelu(op.Add(op.MatMul(h, w.matrix(hidden, 4 * hidden)), w.vector(4 * hidden)))
        out = op.Add(op.MatMul(inner, w.matrix(4 * hidden, hidden)), w.vector(hidden))
        h = op.LayerNormalization(
            op.Add(h, out), w.vector(hidden, 0.9, 1.1), w.vector(hidden), axis=-1
        ).Y
    return oc.build([x], {"hidden": h}, name="transformer")


MODELS: dict[str, Callable[..., Any]] = {
    "resnet50": resnet50,
    "densenet121": densenet121,
    "inception": inception,
    "squeezenet": squeezenet,
    "shufflenet": shufflenet,
    "transformer": transformer,
}
CNNS = ("resnet50", "densenet121", "inception", "squeezenet", "shufflenet")


def feeds_for(model: Any, seed: int = 0) -> dict[str, np.ndarray]:
    """Standard-normal float32 inputs of the shapes the model declares."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for value in model.graph.input:
        dims = [d.dim_value for d in value.type.tensor_type.shape.dim]
        feeds[value.name] = rng.standard_normal(dims).astype(np.float32)
    return feeds
