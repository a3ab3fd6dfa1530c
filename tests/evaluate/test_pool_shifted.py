"""The flat, shifted window reduction of pooling equals the strided one bit for bit.

``onnxcraft.ops.im2col.separable_reduce`` (the strided, axis-by-axis reduction the pooling
kernels used before) is the reference: the same samples combined in the same order, so sums
round the same way. Geometries are drawn: kernels, strides, dilations, pads (also beyond the
window), ceil mode, 1-3 spatial axes, batch > 1, empty inputs, non-contiguous inputs, every
float width and integers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft.ops.im2col import resolve_geometry, separable_reduce
from onnxcraft.ops.pool import shifted
from onnxcraft.ops.pool.shifted import window_reduce


@st.composite
def pools(draw: Any) -> tuple[np.ndarray, Any]:
    nd = draw(st.integers(1, 3))
    kernel = [draw(st.integers(1, 4)) for _ in range(nd)]
    dilations = [draw(st.integers(1, 2)) for _ in range(nd)]
    strides = [draw(st.integers(1, 3)) for _ in range(nd)]
    pads = [draw(st.integers(0, k * d)) for k, d in zip(kernel * 2, dilations * 2)]
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    spatial = [
        draw(st.integers(max(1, s - pads[i] - pads[nd + i]), s + 9)) for i, s in enumerate(spans)
    ]
    batch = draw(st.integers(0, 3))
    channels = draw(st.integers(1, 3))
    dtype = draw(st.sampled_from([np.float32, np.float64, np.float16, np.int32]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = (rng.standard_normal((batch, channels, *spatial)) * 50).astype(dtype)
    if draw(st.booleans()) and x.size:
        x = np.swapaxes(np.ascontiguousarray(np.swapaxes(x, 0, 1)), 0, 1)  # not C-contiguous
    ceil = draw(st.booleans())
    geom = resolve_geometry(
        "MaxPool",
        spatial,
        kernel,
        strides=strides,
        dilations=dilations,
        pads=pads,
        auto_pad="NOTSET",
        ceil_mode=ceil,
    )
    return x, geom


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@settings(max_examples=300, deadline=None)
@given(pools())
def test_max_equals_strided_reduction(case: tuple[np.ndarray, Any]) -> None:
    x, geom = case
    if min(geom.out_shape) < 0:
        return
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    assert _same(
        window_reduce(x, geom, np.maximum, lowest), separable_reduce(x, geom, np.maximum, lowest)
    )


@settings(max_examples=300, deadline=None)
@given(pools())
def test_sum_rounds_as_strided_reduction(case: tuple[np.ndarray, Any]) -> None:
    x, geom = case
    if min(geom.out_shape) < 0:
        return
    assert _same(window_reduce(x, geom, np.add, 0), separable_reduce(x, geom, np.add, 0))


def test_nan_and_signed_zeros_pass_through_as_before() -> None:
    x = np.zeros((2, 3, 9, 7), np.float32)
    x[0, 1, 4, 3] = np.nan
    x[1, 2, 0, 0] = -0.0
    x[1, 0, 8, 6] = np.inf
    geom = resolve_geometry(
        "MaxPool",
        x.shape[2:],
        (3, 3),
        strides=(1, 2),
        dilations=None,
        pads=(1, 1, 1, 1),
        auto_pad="NOTSET",
    )
    for combine, identity in ((np.maximum, -np.inf), (np.add, 0)):
        assert _same(
            window_reduce(x, geom, combine, identity), separable_reduce(x, geom, combine, identity)
        )


def test_a_window_of_one_sample_is_a_new_array() -> None:
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    geom = resolve_geometry(
        "MaxPool", x.shape[2:], (1, 1), strides=None, dilations=None, pads=None, auto_pad="NOTSET"
    )
    for combine, identity in ((np.maximum, -np.inf), (np.add, 0)):
        result = window_reduce(x, geom, combine, identity)
        assert np.array_equal(result, x) and not np.may_share_memory(result, x)


@settings(max_examples=100, deadline=None)
@given(pools(), st.integers(1, 200))
def test_a_few_planes_at_a_time_changes_nothing(case: tuple[np.ndarray, Any], chunk: int) -> None:
    """Large inputs are reduced a few (sample, channel) planes at a time."""
    x, geom = case
    if min(geom.out_shape) < 0:
        return
    saved = shifted._CHUNK, shifted._CHUNKED_ABOVE
    shifted._CHUNK, shifted._CHUNKED_ABOVE = chunk, 0  # as if every drawn input were large
    try:
        for combine, identity in ((np.maximum, _lowest(x)), (np.add, 0)):
            expected = separable_reduce(x, geom, combine, identity)
            assert _same(window_reduce(x, geom, combine, identity), expected)
    finally:
        shifted._CHUNK, shifted._CHUNKED_ABOVE = saved


def _lowest(x: np.ndarray) -> Any:
    return -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min


@st.composite
def innermost_stride_two(draw: Any) -> tuple[np.ndarray, Any]:
    """Windows at stride 2 along the innermost axis (kept every other position by a cast of
    element pairs when rows have an even length), in every element width."""
    kernel = draw(st.integers(1, 4))
    dilation = draw(st.integers(1, 2))
    pads = (draw(st.integers(0, kernel - 1)), draw(st.integers(0, kernel - 1)))
    span = (kernel - 1) * dilation + 1
    width = draw(st.integers(max(1, span - sum(pads)), span + 12))
    rows = draw(st.integers(1, 5))
    dtype = draw(st.sampled_from([np.float16, np.float32, np.float64, np.int8, np.uint8]))
    batch = draw(st.integers(0, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = (rng.standard_normal((batch, 2, rows, width)) * 60).astype(dtype)
    if dtype in (np.float16, np.float32, np.float64) and x.size:
        # NaN, signed zeros and infinities pass through bit for bit (which zero wins depends
        # on the order of the taps)
        flat = x.reshape(-1)
        picks = rng.integers(0, flat.size, 6)
        flat[picks] = [np.nan, -0.0, 0.0, -0.0, np.inf, -np.inf]
    geom = resolve_geometry(
        "MaxPool",
        x.shape[2:],
        (draw(st.integers(1, 3)), kernel),
        strides=(draw(st.integers(1, 2)), 2),
        dilations=(1, dilation),
        pads=(0, pads[0], 0, pads[1]),
        auto_pad="NOTSET",
        ceil_mode=draw(st.booleans()),
    )
    return x, geom


@settings(max_examples=300, deadline=None)
@given(innermost_stride_two())
def test_innermost_stride_two_keeps_every_other_as_strided(case: tuple[np.ndarray, Any]) -> None:
    x, geom = case
    if min(geom.out_shape) < 0:
        return
    lowest = _lowest(x)
    expected = separable_reduce(x, geom, np.maximum, lowest)
    result = window_reduce(x, geom, np.maximum, lowest)
    assert _same(result, expected)
    assert result.flags.c_contiguous and not np.may_share_memory(result, x)


def test_every_other_reads_the_first_of_each_pair() -> None:
    """Each cast width, rows of even and odd length, fewer outputs than pairs."""
    for dtype in (np.uint8, np.float16, np.float32, np.float64):
        every = np.arange(2 * 3 * 10, dtype=dtype).reshape(2, 3, 10)
        for n_out in (5, 3, 1):
            kept = shifted._every_other(every, n_out)
            assert _same(kept, np.ascontiguousarray(every[..., 0 : 2 * n_out - 1 : 2]))
        odd = np.ascontiguousarray(every[..., :9])
        assert _same(shifted._every_other(odd, 5), np.ascontiguousarray(odd[..., ::2]))


def test_a_recorded_reduction_gives_new_arrays_run_after_run() -> None:
    """The operations are recorded once per shape and geometry; every run still reduces its
    own input into arrays of its own."""
    rng = np.random.default_rng(7)
    geom = resolve_geometry(
        "MaxPool", (9, 8), (3, 3), strides=(2, 2), dilations=None, pads=(1,) * 4, auto_pad="NOTSET"
    )
    inputs = [rng.standard_normal((2, 3, 9, 8)).astype(np.float32) for _ in range(3)]
    for combine, identity in ((np.maximum, -np.inf), (np.add, 0)):
        results = [window_reduce(x, geom, combine, identity) for x in inputs]
        for x, result in zip(inputs, results, strict=True):
            assert _same(result, separable_reduce(x, geom, combine, identity))
            assert not any(
                np.may_share_memory(result, other) for other in results if other is not result
            )
