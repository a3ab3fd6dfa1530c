"""The im2col's columns copied straight from the images (``ops/conv/columns.py``): working
arrays of their kind keep the padding's zeros and the row of ones between calls, and the
products are the bits of the columns copied from a padded image."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft.ops.conv import columns, scratch
from onnxcraft.ops.conv.prepared import _SIDE_BY_SIDE_POSITIONS, PreparedConv, prepare_conv
from onnxcraft.ops.conv.scratch import WorkingArrays
from tests.evaluate._threads import run_in_threads


@contextmanager
def _from_images(on: bool) -> Iterator[None]:
    """Convolutions first called meanwhile copy their columns from the images (any output
    size), or from a padded image."""
    with patch.object(columns, "_POSITIONS", 0 if on else 1 << 62):
        yield


def _im2col(
    w: np.ndarray, b: np.ndarray | None, attrs: dict, x: np.ndarray, work: WorkingArrays
) -> PreparedConv:
    """A prepared convolution taking the im2col layout for ``x``'s shape."""
    conv = prepare_conv(w, b, attrs, work=work)
    assert conv is not None
    layout = conv._layout_for(x)
    assert layout is not None
    conv._layouts[x.shape[1:]] = type(layout)(layout.geom, "im2col")
    return conv


@st.composite
def padded_convs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
    """2-D convolutions of up to 3 x 3 taps with padding: strides, dilations, groups, batches
    of 1 to 3, inputs that may be views of another layout, values that may be inf or NaN."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    groups = draw(st.integers(1, 3))
    c, m = groups * draw(st.integers(1, 4)), groups * draw(st.integers(1, 4))
    kernel = [draw(st.integers(1, 3)) for _ in range(2)]
    strides = [draw(st.integers(1, 3)) for _ in range(2)]
    dilations = [draw(st.integers(1, 2)) for _ in range(2)]
    pads = [draw(st.integers(0, 3)) for _ in range(4)]
    if not any(pads):
        pads[draw(st.integers(0, 3))] = 1
    spatial = [
        draw(st.integers(max(1, (k - 1) * d + 1 - pads[i] - pads[i + 2]), 30))
        for i, (k, d) in enumerate(zip(kernel, dilations, strict=True))
    ]
    x = rng.standard_normal((draw(st.integers(1, 3)), c, *spatial)).astype(dtype)
    if draw(st.booleans()):
        x.flat[draw(st.integers(0, x.size - 1))] = draw(st.sampled_from([np.inf, -np.inf, np.nan]))
    if draw(st.booleans()):
        x = np.ascontiguousarray(x.transpose(1, 0, 2, 3)).transpose(1, 0, 2, 3)  # not C-ordered
    w = rng.standard_normal((m, c // groups, *kernel)).astype(dtype)
    b = rng.standard_normal(m).astype(dtype) if draw(st.booleans()) else None
    attrs = {"pads": pads, "strides": strides, "dilations": dilations, "group": groups}
    return x, w, b, attrs


@settings(max_examples=150, deadline=None)
@given(case=padded_convs())
def test_columns_from_the_images_give_the_padded_images_bits(case: tuple) -> None:
    """The same bits as the columns of a padded image, call after call, another image in
    between, with a convolution of the same kind sharing the working arrays."""
    x, w, b, attrs = case
    work = WorkingArrays()
    direct, twin = _im2col(w, b, attrs, x, work), _im2col(w[::-1].copy(), b, attrs, x, work)
    padded, padded_twin = _im2col(w, b, attrs, x, work), _im2col(w[::-1].copy(), b, attrs, x, work)
    with _from_images(True):
        first = direct(x)
        twin_first = twin(x)
    with _from_images(False):
        assert first.tobytes() == padded(x).tobytes()
        assert twin_first.tobytes() == padded_twin(x).tobytes()
    layout = direct._layout_for(x)
    assert layout is not None
    geom = layout.geom
    side_by_side = x.shape[0] > 1 and math.prod(geom.out_shape) <= _SIDE_BY_SIDE_POSITIONS
    itself = (*geom.kernel, *geom.strides) == (1, 1, 1, 1)  # multiplies the padded image
    taken = any(c is not None for c in direct._columns.values())
    assert taken == (not side_by_side and not itself)
    assert not any(c is not None for c in padded._columns.values())
    other = np.ascontiguousarray(x[::-1]) * 2  # another image through the same arrays
    assert direct(other).tobytes() == padded(other).tobytes()
    assert twin(x).tobytes() == twin_first.tobytes()
    assert direct(x).tobytes() == first.tobytes()


def test_only_padded_small_kernels_on_large_outputs() -> None:
    """No padding (the images are their own windows), more than 9 taps, fewer than
    ``_POSITIONS`` output positions, or a 1x1 kernel: the padded image's way."""
    rng = np.random.default_rng(2)
    w3, w5 = (rng.standard_normal((4, 4, k, k)).astype(np.float32) for k in (3, 5))
    cases = [
        (w3, {"pads": [1] * 4}, (1, 4, 28, 28), True),
        (w3, {}, (1, 4, 30, 30), False),
        (w5, {"pads": [2] * 4}, (1, 4, 28, 28), False),
        (w3, {"pads": [1] * 4}, (1, 4, 14, 14), False),
        (w3[:, :, :1, :1].copy(), {"pads": [1] * 4}, (1, 4, 28, 28), False),
    ]
    for w, attrs, shape, taken in cases:
        x = rng.standard_normal(shape).astype(np.float32)
        conv = _im2col(w, None, attrs, x, WorkingArrays())
        conv(x)
        assert any(c is not None for c in conv._columns.values()) == taken


def test_threads_keep_columns_of_their_own() -> None:
    """Two threads running one convolution at once, each with its own working arrays (and
    so its own padding's zeros), get the bits of a lone run."""
    rng = np.random.default_rng(5)
    w = rng.standard_normal((8, 6, 3, 3)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    feeds = [rng.standard_normal((1, 6, 28, 28)).astype(np.float32) for _ in range(2)]
    conv = _im2col(w, b, {"pads": [1] * 4}, feeds[0], WorkingArrays())
    alone = _im2col(w, b, {"pads": [1] * 4}, feeds[0], WorkingArrays())
    with _from_images(False):
        expected = [alone(x).tobytes() for x in feeds]
    failures: list[int] = []

    def run(k: int) -> None:
        for _ in range(100):
            if conv(feeds[k]).tobytes() != expected[k]:
                failures.append(k)

    run_in_threads(run, 2)
    assert not failures
    assert any(c is not None for c in conv._columns.values())


def test_arrays_of_their_kind_are_bounded_per_thread() -> None:
    """Past ``KIND_BYTES`` in a thread, new kinds take the shared working arrays (the padded
    image's columns, the depthwise runs' shared blocks): the same bits, no more memory."""
    rng = np.random.default_rng(9)
    w = rng.standard_normal((8, 6, 3, 3)).astype(np.float32)
    wd = rng.standard_normal((6, 1, 3, 3)).astype(np.float32)
    feeds = [rng.standard_normal((1, 6, side, side)).astype(np.float32) for side in (28, 30, 32)]
    work = WorkingArrays()
    first = 6 * 9 * 28 * 28 * 4  # the first kind's columns, all the room there is
    with patch.object(scratch, "KIND_BYTES", first):
        for x in feeds:
            conv = _im2col(w, None, {"pads": [1] * 4}, x, work)
            depthwise = prepare_conv(wd, None, {"pads": [1] * 4, "group": 6}, work=work)
            assert depthwise is not None
            alone = _im2col(w, None, {"pads": [1] * 4}, x, WorkingArrays())
            with _from_images(False):
                expected = alone(x).tobytes()
            assert conv(x).tobytes() == expected
            assert conv(x).tobytes() == expected
            alone_depthwise = prepare_conv(wd, None, {"pads": [1] * 4, "group": 6})
            assert alone_depthwise is not None
            assert depthwise(x).tobytes() == alone_depthwise(x).tobytes()
        assert work.kind_bytes == first
        kinds = [name for name in work.blocks if name.startswith(("columns", "depthwise"))]
        assert len(kinds) == 1
