"""Every rewrite of ``fuse=True`` leaves an input's infinity or NaN where the nodes as written
leave it (``fuse=False``): the same outputs NaN, the same infinite with the same sign, the
rest within the fusion's rounding.

The rewrites round differently from the nodes as written, but rounding cannot turn a finite
output into NaN: a product that mixed values from outside an output's window (the depthwise
banded products, Winograd's transforms) would, and did, before those layouts checked for
non-finite values. Each pattern below is a small model whose plan takes the rewrite (the
test asserts the step it makes), fed drawn inputs with an infinity of either sign or a NaN at
a drawn place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.ops.conv.prepared import PreparedConv
from onnxcraft.opset.ai.onnx import v21 as op

_Pattern = Callable[[np.random.Generator], tuple[Any, tuple[int, ...]]]


def _weights(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    fan_in = int(np.prod(shape[1:]))
    return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)


def _vector(rng: np.random.Generator, n: int, low: float = -0.5, high: float = 0.5) -> np.ndarray:
    return rng.uniform(low, high, n).astype(np.float32)


def _bn(rng: np.random.Generator, x: oc.Var, channels: int) -> oc.Var:
    statistics = [_vector(rng, channels, 0.5, 1.5), _vector(rng, channels)]
    statistics += [_vector(rng, channels), _vector(rng, channels, 0.5, 1.5)]
    return op.BatchNormalization(x, *statistics).Y


def _conv(rng: np.random.Generator, x: oc.Var, c: int, m: int, k: int, **attrs: Any) -> oc.Var:
    group = attrs.get("group", 1)
    return op.Conv(x, _weights(rng, (m, c // group, k, k)), _vector(rng, m), **attrs)


def _conv_bn_relu(rng: np.random.Generator) -> tuple[Any, tuple[int, ...]]:
    """Conv -> BatchNormalization -> Relu of each prepared layout's shape."""
    x = oc.arg("X", np.float32, ("N", 16, 12, 12))
    taps = op.Relu(_bn(rng, _conv(rng, x, 16, 4, 3, pads=(1,) * 4), 4))  # 16 -> 4: taps
    rows = op.Relu(_bn(rng, _conv(rng, x, 16, 12, 3, pads=(1,) * 4), 12))  # rows
    strided = op.Relu(_conv(rng, x, 16, 8, 3, pads=(1,) * 4, strides=(2, 2)))  # im2col
    depthwise = op.Relu(_bn(rng, _conv(rng, x, 16, 16, 3, pads=(1,) * 4, group=16), 16))
    return oc.build([x], {"A": taps, "B": rows, "C": strided, "D": depthwise}), (2, 16, 12, 12)


def _winograd(rng: np.random.Generator) -> tuple[Any, tuple[int, ...]]:
    """A 3x3 convolution of 64 channels on 16 x 16 (F(4x4, 3x3) at batch 2), then a Relu."""
    x = oc.arg("X", np.float32, ("N", 64, 16, 16))
    return oc.build([x], {"Y": op.Relu(_conv(rng, x, 64, 64, 3, pads=(1,) * 4))}), (2, 64, 16, 16)


def _winograd2(rng: np.random.Generator) -> tuple[Any, tuple[int, ...]]:
    """A 3x3 convolution of 256 channels on 8 x 8 (F(2x2, 3x3)), then a Relu."""
    x = oc.arg("X", np.float32, ("N", 256, 8, 8))
    return oc.build([x], {"Y": op.Relu(_conv(rng, x, 256, 256, 3, pads=(1,) * 4))}), (1, 256, 8, 8)


def _residual(rng: np.random.Generator) -> tuple[Any, tuple[int, ...]]:
    """ResNet's block end: Conv -> BatchNormalization -> Add -> Relu."""
    x = oc.arg("X", np.float32, ("N", 8, 9, 9))
    y = _bn(rng, _conv(rng, op.Relu(_conv(rng, x, 8, 8, 1)), 8, 8, 3, pads=(1,) * 4), 8)
    return oc.build([x], {"Y": op.Relu(op.Add(y, x))}), (2, 8, 9, 9)


def _dense(rng: np.random.Generator) -> tuple[Any, tuple[int, ...]]:
    """DenseNet's layers and transition: Concat -> BN -> Relu -> 1x1 Conv -> BN -> Relu ->
    3x3 Conv, twice, then BN -> Relu -> 1x1 Conv -> AveragePool."""
    x = oc.arg("X", np.float32, ("N", 8, 8, 8))
    grown, channels = x, 8
    for _ in range(2):  # two layers: the second Concat reads the first
        layer = _conv(rng, op.Relu(_bn(rng, grown, channels)), channels, 16, 1)
        new = _conv(rng, op.Relu(_bn(rng, layer, 16)), 16, 4, 3, pads=(1,) * 4)
        grown, channels = op.Concat(grown, new, axis=1), channels + 4
    pooled = op.AveragePool(
        _conv(rng, op.Relu(_bn(rng, grown, channels)), channels, 6, 1),
        kernel_shape=(2, 2),
        strides=(2, 2),
    )
    return oc.build([x], {"Y": pooled}), (1, 8, 8, 8)


def _stem(rng: np.random.Generator) -> tuple[Any, tuple[int, ...]]:
    """SqueezeNet's stem (Conv -> Relu -> MaxPool 3x3 / 2), a fire module's siblings writing
    into their Concat, and GlobalAveragePool."""
    x = oc.arg("X", np.float32, ("N", 3, 33, 33))
    stem = op.MaxPool(
        op.Relu(_conv(rng, x, 3, 16, 3, strides=(2, 2))), kernel_shape=(3, 3), strides=(2, 2)
    ).Y
    squeeze = op.Relu(_conv(rng, stem, 16, 4, 1))
    fire = op.Concat(
        op.Relu(_conv(rng, squeeze, 4, 8, 1)),
        op.Relu(_conv(rng, squeeze, 4, 8, 3, pads=(1,) * 4)),
        axis=1,
    )
    return oc.build([x], {"Y": op.GlobalAveragePool(fire)}), (1, 3, 33, 33)


def _shuffle(rng: np.random.Generator) -> tuple[Any, tuple[int, ...]]:
    """ShuffleNet's unit: a channel split, 1x1 -> depthwise 3x3 -> 1x1 on one half, the
    halves concatenated and shuffled."""
    x = oc.arg("X", np.float32, ("N", 8, 10, 10))
    kept, branch = op.Split(x, axis=1, num_outputs=2)
    branch = op.Relu(_bn(rng, _conv(rng, branch, 4, 4, 1), 4))
    branch = _bn(rng, _conv(rng, branch, 4, 4, 3, pads=(1,) * 4, group=4), 4)
    branch = op.Relu(_conv(rng, branch, 4, 4, 1))
    joined = op.Concat(kept, branch, axis=1)
    split = op.Reshape(joined, np.array([1, 2, 4, 10, 10], np.int64))
    swapped = op.Transpose(split, perm=(0, 2, 1, 3, 4))
    shuffled = op.Reshape(swapped, np.array([1, 8, 10, 10], np.int64))
    return oc.build([x], {"Y": shuffled}), (1, 8, 10, 10)


def _encoder(rng: np.random.Generator) -> tuple[Any, tuple[int, ...]]:
    """A standing BatchNormalization (its factor and offset made once), then a transformer's
    feed-forward: MatMul -> Add -> Gelu (in float32) -> MatMul, and a residual Add."""
    x = oc.arg("X", np.float32, ("N", 6, 16))
    normed = _bn(rng, x, 6)
    hidden = op.Gelu(op.Add(op.MatMul(normed, _weights(rng, (16, 32))), _vector(rng, 32)))
    return oc.build([x], {"Y": op.Add(op.MatMul(hidden, _weights(rng, (32, 16))), x)}), (2, 6, 16)


PATTERNS: dict[str, _Pattern] = {
    "conv_bn_relu": _conv_bn_relu,
    "winograd": _winograd,
    "winograd2": _winograd2,
    "residual": _residual,
    "dense": _dense,
    "stem": _stem,
    "shuffle": _shuffle,
    "encoder": _encoder,
}


@settings(max_examples=40, deadline=None)
@given(
    pattern=st.sampled_from(sorted(PATTERNS)),
    special=st.sampled_from([np.inf, -np.inf, np.nan]),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_non_finite_inputs_land_where_the_written_nodes_put_them(
    pattern: str, special: float, seed: int, data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    model, shape = PATTERNS[pattern](rng)
    x = rng.standard_normal(shape).astype(np.float32)
    place = tuple(data.draw(st.integers(0, size - 1)) for size in shape)
    x[place] = special
    fused = oc.Evaluator(model).run({"X": x})
    written = oc.Evaluator(model, fuse=False).run({"X": x})
    for name, expected in written.items():
        got = fused[name]
        assert np.array_equal(np.isnan(got), np.isnan(expected)), name
        infinite = np.isinf(expected)
        assert np.array_equal(np.isinf(got), infinite), name
        assert np.array_equal(got[infinite], expected[infinite]), name
        finite = np.isfinite(expected)
        scale = float(np.abs(expected[finite]).max(initial=0.0)) + 1.0
        assert np.abs(got[finite] - expected[finite]).max(initial=0.0) <= 1e-4 * scale, name


def test_the_patterns_take_their_rewrites() -> None:
    """Each pattern's plan holds the fused steps and the convolutions' layouts the test is
    about (else it tests nothing)."""
    rng = np.random.default_rng(0)
    layouts: set[str] = set()
    for name, pattern in PATTERNS.items():
        model, shape = pattern(rng)
        evaluator = oc.Evaluator(model)
        evaluator.run({"X": rng.standard_normal(shape).astype(np.float32)})
        fused = evaluator._plan.steps
        written = oc.Evaluator(model, fuse=False)._plan.steps
        assert _kernels(fused) != _kernels(written), name  # steps joined or kernels replaced
        for step in fused:
            convs = [step.fn, *getattr(step.fn, "__dict__", {}).values()]
            for conv in (c for c in convs if isinstance(c, PreparedConv)):
                layouts.update(layout.name for layout in conv._layouts.values())
    assert {"taps", "rows", "im2col", "depthwise", "winograd4", "winograd"} <= layouts


def _kernels(steps: list[Any]) -> list[str]:
    return [getattr(step.fn, "__qualname__", type(step.fn).__qualname__) for step in steps]
