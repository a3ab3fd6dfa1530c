"""A prepared Conv (and Relu) fused with the 3x3, stride-2 MaxPool after it (``fuse=True``): the
pool of the phases is the MaxPool and Relu kernels' bit for bit; the whole step gives the
values of the same evaluator without the rewrite within the product's rounding (the same
NaNs, infinities and zeros' places), over drawn geometries, batches, special values and ceil
mode; and the rewrite applies only where it may."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.evaluate import fusion
from onnxcraft.evaluate.conv_pool import ConvThenPool, pool_padded_phases, pool_phases
from onnxcraft.ops.clamp import at_least_zero
from onnxcraft.ops.conv.scratch import WorkingArrays
from onnxcraft.ops.pool.kernels import max_pool
from onnxcraft.opset.ai.onnx import v7 as op7
from onnxcraft.opset.ai.onnx import v21 as op


@contextmanager
def _no_rewrite() -> Iterator[None]:
    saved = fusion.pool_into_conv
    fusion.pool_into_conv = lambda steps, *args: steps  # type: ignore[assignment]
    try:
        yield
    finally:
        fusion.pool_into_conv = saved  # type: ignore[assignment]


def _without(model: Any) -> oc.Evaluator:
    with _no_rewrite():
        return oc.Evaluator(model)


def _fused(evaluator: oc.Evaluator) -> list[ConvThenPool]:
    return [s.fn for s in evaluator._plan.steps if isinstance(s.fn, ConvThenPool)]


def _stem(
    dtype: type,
    channels: int,
    out_channels: int,
    kernel: tuple[int, int],
    strides: tuple[int, int],
    pads: tuple[int, int, int, int],
    dilations: tuple[int, int],
    bias: bool,
    relu: bool,
    ceil_mode: int,
    seed: int,
    pool_pad: int = 0,
) -> Any:
    rng = np.random.default_rng(seed)
    X = oc.arg("X", dtype, ("N", channels, "H", "W"))
    w = rng.standard_normal((out_channels, channels, *kernel)).astype(dtype)
    b = rng.standard_normal(out_channels).astype(dtype) if bias else None
    y = op.Conv(X, w, b, strides=strides, pads=pads, dilations=dilations)
    if relu:
        y = op.Relu(y)
    pooled = op.MaxPool(
        y, kernel_shape=(3, 3), strides=(2, 2), pads=(pool_pad,) * 4, ceil_mode=ceil_mode
    ).Y
    return oc.build([X], {"Y": pooled})


def _special(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """Normal values with some zeros of both signs, infinities and NaNs of both signs."""
    x = rng.standard_normal(shape).astype(dtype)
    picks = rng.integers(0, 40, shape)
    for code, value in ((0, 0.0), (1, -0.0), (2, np.inf), (3, -np.inf), (4, np.nan), (5, -np.nan)):
        x[picks == code] = value
    return x


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from([np.float32, np.float64]),
    channels=st.integers(1, 5),
    out_channels=st.integers(1, 9),
    kernel=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    strides=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    pads=st.tuples(*[st.integers(0, 2)] * 4),
    dilations=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    bias=st.booleans(),
    relu=st.booleans(),
    ceil_mode=st.integers(0, 1),
    sizes=st.lists(
        st.tuples(st.integers(0, 3), st.integers(12, 40), st.integers(12, 40)),
        min_size=1,
        max_size=3,
    ),
    special=st.booleans(),
    seed=st.integers(0, 2**16),
    pool_pad=st.integers(0, 1),
)
def test_same_bits_as_without_the_rewrite(
    dtype: type,
    channels: int,
    out_channels: int,
    kernel: tuple[int, int],
    strides: tuple[int, int],
    pads: tuple[int, int, int, int],
    dilations: tuple[int, int],
    bias: bool,
    relu: bool,
    ceil_mode: int,
    sizes: list[tuple[int, int, int]],
    special: bool,
    seed: int,
    pool_pad: int,
) -> None:
    model = _stem(
        dtype,
        channels,
        out_channels,
        kernel,
        strides,
        pads,
        dilations,
        bias,
        relu,
        ceil_mode,
        seed,
        pool_pad,
    )
    fast, before = oc.Evaluator(model), _without(model)
    assert len(_fused(fast)) == 1 and not _fused(before)
    rng = np.random.default_rng(seed)
    for batch, h, w in sizes:
        reach = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
        if h + pads[0] + pads[2] < reach[0] or w + pads[1] + pads[3] < reach[1]:
            continue  # no output position: the Conv fails alike, not this test's matter
        conv_out = [
            (n + a + b - r) // t + 1
            for n, a, b, r, t in zip((h, w), pads[:2], pads[2:], reach, strides, strict=True)
        ]
        if min(conv_out) + 2 * pool_pad < 3:
            continue  # no window of the pool on the Conv's output: it fails alike
        shape = (batch, channels, h, w)
        x = _special(rng, shape, dtype) if special else rng.standard_normal(shape).astype(dtype)
        got = fast.run({"X": x})["Y"]
        want = before.run({"X": x})["Y"]
        assert got.dtype == want.dtype and got.shape == want.shape
        _close(got, want, dtype)
        if not special:  # the prepared Conv's rounding against the nodes as written
            _close(got, oc.evaluate(model, {"X": x}, fuse=False)["Y"], dtype)


def _close(got: np.ndarray, want: np.ndarray, dtype: type) -> None:
    """Equal NaN and infinity places and signs, values within the products' rounding: sums
    of at most 5 x 9 drawn normal terms, 256 units of the largest value."""
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    scale = float(np.abs(want[finite]).max(initial=1.0))
    atol = 256 * float(np.finfo(dtype).eps) * scale
    np.testing.assert_allclose(got[finite], want[finite], rtol=0, atol=atol)


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from([np.float32, np.float64]),
    channels=st.integers(1, 40),
    size=st.tuples(st.integers(3, 30), st.integers(3, 30)),
    relu=st.booleans(),
    ceil_mode=st.integers(0, 1),
    seed=st.integers(0, 2**16),
)
def test_pool_of_phases_same_bits_as_the_kernels(
    dtype: type, channels: int, size: tuple[int, int], relu: bool, ceil_mode: int, seed: int
) -> None:
    """pool_phases on an image split into its phases (positions past it NaN: never read)
    against the MaxPool kernel of the image (after the Relu kernel when ``relu``)."""
    hc, wc = size
    if ceil_mode and (hc % 2 == 0 or wc % 2 == 0):
        ceil_mode = 0  # the rewrite runs those as written
    z = _special(np.random.default_rng(seed), (1, channels, hc, wc), dtype)
    hq, wq = -(-hc // 2), -(-wc // 2)
    phases = np.full((channels, 2, 2, hq, wq), np.nan, dtype)
    for p in range(2):
        for q in range(2):
            part = z[0, :, p::2, q::2]
            phases[:, p, q, : part.shape[1], : part.shape[2]] = part
    out = np.empty((channels, (hc - 3) // 2 + 1, (wc - 3) // 2 + 1), dtype)
    pool_phases(phases.reshape(channels, 2, 2, -1), wq, out, relu=relu, work=WorkingArrays())
    source = at_least_zero(z) if relu else z
    want = max_pool(source, kernel_shape=(3, 3), strides=(2, 2), ceil_mode=ceil_mode)[0]
    assert out.tobytes() == want[0].tobytes()


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from([np.float32, np.float64]),
    channels=st.integers(1, 40),
    half=st.tuples(st.integers(1, 15), st.integers(1, 15)),
    relu=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_padded_pool_of_phases_same_bits_as_the_kernels(
    dtype: type, channels: int, half: tuple[int, int], relu: bool, seed: int
) -> None:
    """pool_padded_phases on an image of even sizes split into its phases against the MaxPool
    kernel padded by one on every side (after the Relu kernel when ``relu``)."""
    hc, wc = 2 * half[0], 2 * half[1]
    z = _special(np.random.default_rng(seed), (1, channels, hc, wc), dtype)
    phases = np.stack(
        [np.stack([z[0, :, p::2, q::2] for q in range(2)], axis=1) for p in range(2)], axis=1
    )  # (C, p, q, a, b)
    out = np.empty((channels, *half), dtype)
    pool_padded_phases(
        phases.reshape(channels, 2, 2, -1), half[1], out, relu=relu, work=WorkingArrays()
    )
    source = at_least_zero(z) if relu else z
    want = max_pool(source, kernel_shape=(3, 3), strides=(2, 2), pads=(1, 1, 1, 1))[0]
    assert out.tobytes() == want[0].tobytes()


def test_shufflenets_stem_runs_the_padded_pool() -> None:
    """ShuffleNet's stem (3x3, stride 2, padded Conv; a 3x3, stride-2 MaxPool padded by one)
    takes the phases at batch 1 and 2; odd sizes and ceil mode run the two steps as before."""
    model = _stem(np.float32, 3, 6, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True, True, 0, 5, 1)
    fast, before = oc.Evaluator(model), _without(model)
    (fused,) = _fused(fast)
    rng = np.random.default_rng(1)
    for batch in (1, 2):
        x = rng.standard_normal((batch, 3, 224, 224)).astype(np.float32)
        assert fused._by_phases(x, 0) is not None
        got, want = fast.run({"X": x})["Y"], before.run({"X": x})["Y"]
        assert got.shape == (batch, 6, 56, 56)
        _close(got, want, np.float32)
    odd = rng.standard_normal((1, 3, 222, 222)).astype(np.float32)  # a 111 x 111 Conv output
    assert fused._by_phases(odd, 0) is None
    assert fast.run({"X": odd})["Y"].tobytes() == before.run({"X": odd})["Y"].tobytes()
    x = rng.standard_normal((1, 3, 224, 224)).astype(np.float32)
    assert fused._by_phases(x, 1) is None  # ceil mode: one more window


def test_the_phases_run_on_squeezenets_stem() -> None:
    """The stem's geometry (3x3, stride 2, 111 x 111 outputs) takes the phases, batch 1 and 2,
    and reads nothing stale from its working arrays (filled with NaN between runs)."""
    model = _stem(np.float32, 3, 8, (3, 3), (2, 2), (0, 0, 0, 0), (1, 1), True, True, 0, 1)
    fast, before = oc.Evaluator(model), _without(model)
    (fused,) = _fused(fast)
    rng = np.random.default_rng(0)
    for batch in (1, 2):
        x = rng.standard_normal((batch, 3, 224, 224)).astype(np.float32)
        assert fused._by_phases(x, 0) is not None
        got, want = fast.run({"X": x})["Y"], before.run({"X": x})["Y"]
        assert got.shape == (batch, 8, 55, 55)
        _close(got, want, np.float32)
        for block in fused.conv.work.blocks.values():  # stale working arrays: NaN bytes
            block[...] = 0xFF
        assert fast.run({"X": x})["Y"].tobytes() == got.tobytes()


@pytest.mark.parametrize(
    ("h", "ceil_mode", "phases"),
    [(11, 0, True), (12, 0, True), (11, 1, True), (12, 1, False), (2, 0, False)],
)
def test_ceil_mode_past_the_end_runs_as_written(h: int, ceil_mode: int, phases: bool) -> None:
    """Ceil mode on an even size adds a window starting past the last row: the steps as before
    (and a Conv output smaller than the window too)."""
    model = _stem(np.float32, 2, 3, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), True, True, ceil_mode, 2)
    fast, before = oc.Evaluator(model), _without(model)
    (fused,) = _fused(fast)
    x = np.random.default_rng(3).standard_normal((2, 2, h, h)).astype(np.float32)
    assert (fused._by_phases(x, ceil_mode) is not None) == phases
    if h < 3:
        return  # the written pool's own answer on a 2 x 2 input, not this rewrite's
    got, want = fast.run({"X": x})["Y"], before.run({"X": x})["Y"]
    _close(got, want, np.float32)
    if not phases:  # the two steps as before
        assert got.tobytes() == want.tobytes()


def test_only_where_it_may() -> None:
    """Not fused: a pool with Indices, other pool geometries, a Conv output read twice or kept,
    a residual Add; 1x1 stride-1 convolutions are fused but run as before."""
    rng = np.random.default_rng(0)
    X = oc.arg("X", np.float32, (1, 2, 9, 9))
    w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
    y = op.Relu(op.Conv(X, w))
    both = op.MaxPool(y, kernel_shape=(3, 3), strides=(2, 2))
    cases = {
        "indices": oc.build([X], {"Y": both.Y, "I": both.Indices}),
        "stride 1": oc.build([X], {"Y": op.MaxPool(y, kernel_shape=(3, 3)).Y}),
        "padded on two sides": oc.build(
            [X], {"Y": op.MaxPool(y, kernel_shape=(3, 3), strides=(2, 2), pads=(0, 0, 1, 1)).Y}
        ),
        "padded by two": oc.build(
            [X], {"Y": op.MaxPool(y, kernel_shape=(3, 3), strides=(2, 2), pads=(2,) * 4).Y}
        ),
        "read twice": oc.build(
            [X], {"Y": op.MaxPool(y, kernel_shape=(3, 3), strides=(2, 2)).Y, "R": op.Neg(y)}
        ),
        "kept": oc.build([X], {"Y": op.MaxPool(y, kernel_shape=(3, 3), strides=(2, 2)).Y, "R": y}),
        "residual": oc.build(
            [X],
            {
                "Y": op.MaxPool(
                    op.Relu(op.Add(op.Conv(X, w[:2], pads=(1,) * 4), X)),
                    kernel_shape=(3, 3),
                    strides=(2, 2),
                ).Y
            },
        ),
    }
    x = rng.standard_normal((1, 2, 9, 9)).astype(np.float32)
    for name, model in cases.items():
        fast = oc.Evaluator(model)
        assert not _fused(fast), name
        got, want = fast.run({"X": x}), _without(model).run({"X": x})
        assert all(got[k].tobytes() == want[k].tobytes() for k in got), name
    pointwise = _stem(np.float32, 2, 3, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), True, True, 0, 4)
    fast = oc.Evaluator(pointwise)
    (fused,) = _fused(fast)
    assert fused._by_phases(x, 0) is None  # the prepared Conv multiplies the image itself
    assert fast.run({"X": x})["Y"].tobytes() == _without(pointwise).run({"X": x})["Y"].tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_commutes_with_max_bit_for_bit(dtype: type) -> None:
    """relu(max(a, b)) and max(relu(a), relu(b)) as numpy computes them, for every pair of
    special values (zeros of both signs, infinities, NaNs of several payloads and both signs,
    subnormals), in arrays long and short enough for numpy's vector and scalar loops."""
    bits = np.dtype(np.uint32 if dtype == np.float32 else np.uint64)
    top = 1 << (8 * bits.itemsize - 1)
    nans = np.array([top - 1, (top - 1) ^ 1, 2 * top - 1], np.uint64)  # quiet NaNs, signs
    finfo = np.finfo(dtype)
    values = np.concatenate(
        [
            np.array(
                [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, finfo.tiny, -finfo.tiny, finfo.max],
                dtype,
            ),
            np.array([finfo.smallest_subnormal, -finfo.smallest_subnormal], dtype),
            nans.astype(bits).view(dtype),
        ]
    )
    a, b = np.repeat(values, len(values)), np.tile(values, len(values))
    for copies in (1, 3, 64):
        left, right = np.tile(a, copies), np.tile(b, copies)
        fused = at_least_zero(np.maximum(left, right))
        written = np.maximum(at_least_zero(left), at_least_zero(right))
        assert fused.view(bits).tobytes() == written.view(bits).tobytes()
    for x, y in zip(a, b):  # one element at a time
        one = at_least_zero(np.maximum(x[None], y[None]))
        other = np.maximum(at_least_zero(x[None]), at_least_zero(y[None]))
        assert one.view(bits).tobytes() == other.view(bits).tobytes()


def test_maxpool_1_without_a_context() -> None:
    """MaxPool-1's kernel (no node context, no Indices) is fused and called alike."""
    rng = np.random.default_rng(5)
    X = oc.arg("X", np.float32, ("N", 3, "H", "W"))
    w = rng.standard_normal((6, 3, 3, 3)).astype(np.float32)
    y = op7.Relu(op7.Conv(X, w, strides=(2, 2)))
    model = oc.build([X], {"Y": op7.MaxPool(y, kernel_shape=(3, 3), strides=(2, 2))})
    fast, before = oc.Evaluator(model), _without(model)
    (fused,) = _fused(fast)
    assert not fused.with_context
    for shape in ((2, 3, 30, 30), (1, 3, 9, 9)):  # the phases, then the steps as before
        x = rng.standard_normal(shape).astype(np.float32)
        _close(fast.run({"X": x})["Y"], before.run({"X": x})["Y"], np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("pool_pad", [0, 1])
@pytest.mark.parametrize("special", [False, True])
def test_a_stem_outside_the_phases_clamps_after_its_pool_the_same_bits(
    dtype: type, pool_pad: int, special: bool
) -> None:
    """A 7x7 stride-2 stem runs the prepared Conv's own phases layout, then the pool kernel:
    its Relu now comes after the pool, on the pooled values. A max and a Relu commute bit
    for bit, and the Conv's products are the same, so the output is the same bits as the
    two steps without the rewrite (NaN, infinities and signed zeros included)."""
    model = _stem(dtype, 3, 8, (7, 7), (2, 2), (3, 3, 3, 3), (1, 1), True, True, 0, 5, pool_pad)
    fast, before = oc.Evaluator(model), _without(model)
    [fused] = _fused(fast)
    rng = np.random.default_rng(pool_pad)
    for batch, size in ((1, 40), (2, 33)):
        shape = (batch, 3, size, size)
        x = _special(rng, shape, dtype) if special else rng.standard_normal(shape).astype(dtype)
        layout = fused.conv._layout_for(x)
        assert layout is not None and layout.name == "phases"  # not the rewrite's phases
        got, want = fast.run({"X": x})["Y"], before.run({"X": x})["Y"]
        bits = np.uint32 if dtype == np.float32 else np.uint64
        np.testing.assert_array_equal(got.view(bits), want.view(bits))
