"""The depthwise convolutions' runs per input shape (``ops/conv/depthwise.py``, ``DepthwiseRun``)
and the image function chosen with a prepared Conv's layout: views of the plan's shared
working arrays kept between calls must follow those arrays when another convolution grows
them, and when another thread runs the same convolution; runs taking working arrays of
their kind (the constant parts made once) give the bits of runs in the shared ones."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft.ops.conv import depthwise
from onnxcraft.ops.conv.prepared import PreparedConv, prepare_conv
from onnxcraft.ops.conv.scratch import WorkingArrays
from tests.evaluate._threads import run_in_threads


def _depthwise(rng: np.random.Generator, c: int, stride: int, work: WorkingArrays) -> PreparedConv:
    w = rng.standard_normal((c, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    attrs = {"pads": [1] * 4, "strides": [stride] * 2, "group": c}
    prepared = prepare_conv(w, b, attrs, work=work)
    assert prepared is not None
    return prepared


def _alone(prepared: PreparedConv) -> PreparedConv:
    """The same convolution with working arrays of its own."""
    alone = prepare_conv(prepared.weight, prepared.bias, prepared.attributes)
    assert alone is not None
    return alone


@contextmanager
def _keeping(keep: bool) -> Iterator[None]:
    """Runs made meanwhile take working arrays of their kind (or the shared ones)."""
    with patch.object(depthwise, "_KEEP", keep):
        yield


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.lists(
        st.tuples(st.integers(1, 3), st.integers(2, 24), st.integers(1, 2), st.integers(1, 9)),
        min_size=2,
        max_size=4,
    ),
    order=st.lists(st.integers(0, 3), min_size=4, max_size=12),
    keep=st.booleans(),
)
def test_shared_working_arrays_grown_between_calls(
    seed: int, sizes: list[tuple[int, int, int, int]], order: list[int], keep: bool
) -> None:
    """Convolutions of drawn sizes sharing one WorkingArrays, called in a drawn order (each
    call may grow the blocks another one's views were made of, or take arrays of its kind
    beside them): the same bits as each convolution with working arrays of its own."""
    rng = np.random.default_rng(seed)
    work = WorkingArrays()
    convs = [_depthwise(rng, c, stride, work) for _, c, stride, _ in sizes]
    alone = [_alone(prepared) for prepared in convs]
    inputs = [rng.standard_normal((n, c, side, side)).astype(np.float32) for n, c, _, side in sizes]
    for at in order:
        i = at % len(convs)
        with _keeping(keep):
            got = convs[i](inputs[i])
        assert convs[i]._layout_for(inputs[i]).name == "depthwise"  # type: ignore[union-attr]
        assert got.tobytes() == alone[i](inputs[i]).tobytes()
    if not keep:
        assert max(len(work.blocks), 1) <= 3  # padded, cols, products: shared, not per conv


@pytest.mark.parametrize("keep", [False, True])
def test_threads_share_a_convolution(keep: bool) -> None:
    """Two threads running the same prepared depthwise convolution at once, each with its own
    working arrays (thread-local) and so its own views, get the bits of a lone run."""
    rng = np.random.default_rng(7)
    prepared = _depthwise(rng, 24, 1, WorkingArrays())
    alone = _alone(prepared)
    feeds = [rng.standard_normal((1, 24, 14, 14)).astype(np.float32) for _ in range(2)]
    expected = [alone(x).tobytes() for x in feeds]
    with _keeping(keep):
        prepared(feeds[0])  # the run made in this thread, as kept or not
    assert all(run.kept == keep for run in prepared._depthwise_runs.values())
    failures: list[int] = []

    def work(k: int) -> None:
        for _ in range(200):
            if prepared(feeds[k]).tobytes() != expected[k]:
                failures.append(k)

    run_in_threads(work, 2)
    assert not failures


def test_layouts_carry_their_image_function() -> None:
    """A chosen layout holds its image function (unbound: no reference back to the Conv) and
    chunk size; a layout made without them, as the tests' ``_force`` makes, works them out
    call by call, with the same bits."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 16, 9, 9)).astype(np.float32)
    for w, attrs in (
        (rng.standard_normal((16, 1, 3, 3)), {"pads": [1] * 4, "group": 16}),
        (rng.standard_normal((8, 16, 1, 1)), {}),
        (rng.standard_normal((8, 16, 3, 3)), {"pads": [1] * 4}),
    ):
        prepared = prepare_conv(w.astype(np.float32), None, attrs, relu=lambda y: y)
        assert prepared is not None
        layout = prepared._layout_for(x)
        assert layout is not None and layout.image is not None and layout.at_once >= 1
        assert not hasattr(layout.image, "__self__")
        chosen = prepared(x)
        key = x.shape[1:]
        prepared._layouts[key] = type(layout)(layout.geom, layout.name)
        assert prepared(x).tobytes() == chosen.tobytes()


@st.composite
def depthwise_cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
    """Depthwise convolutions: any kernel, stride (often 2 or 3 vertically: the runs that
    copy their rectangles from the image), dilation and padding, batches of 1 to 3, inputs
    that may be views of another layout, values that may be inf or NaN."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    c = draw(st.integers(1, 12))
    kernel = [draw(st.integers(1, 5)) for _ in range(2)]
    strides = [draw(st.sampled_from([1, 2, 2, 3])), draw(st.integers(1, 3))]
    dilations = [draw(st.integers(1, 2)) for _ in range(2)]
    pads = [draw(st.integers(0, 3)) for _ in range(4)]
    spatial = [
        draw(st.integers(max(1, (k - 1) * d + 1 - pads[i] - pads[i + 2]), 40))
        for i, (k, d) in enumerate(zip(kernel, dilations, strict=True))
    ]
    n = draw(st.integers(1, 3))
    x = rng.standard_normal((n, c, *spatial)).astype(dtype)
    if draw(st.booleans()):
        x.flat[draw(st.integers(0, x.size - 1))] = draw(st.sampled_from([np.inf, -np.inf, np.nan]))
    if draw(st.booleans()):
        x = np.ascontiguousarray(x.transpose(1, 0, 2, 3)).transpose(1, 0, 2, 3)  # not C-ordered
    w = rng.standard_normal((c, 1, *kernel)).astype(dtype)
    b = rng.standard_normal(c).astype(dtype) if draw(st.booleans()) else None
    attrs = {"pads": pads, "strides": strides, "dilations": dilations, "group": c}
    return x, w, b, attrs


def _banded(w: np.ndarray, b: np.ndarray | None, attrs: dict, x: np.ndarray) -> PreparedConv:
    """A prepared depthwise convolution taking the banded products for ``x``'s shape,
    whatever the layout it would choose."""
    conv = prepare_conv(w, b, attrs)
    assert conv is not None
    layout = conv._layout_for(x)
    assert layout is not None
    conv._layouts[x.shape[1:]] = type(layout)(layout.geom, "depthwise")
    return conv


@settings(max_examples=150, deadline=None)
@given(case=depthwise_cases())
def test_kept_working_arrays_give_the_shared_arrays_bits(case: tuple) -> None:
    """Runs in working arrays of their kind (the padded image's frame and the ones made
    once; strided ones copying their rectangles straight from the image into rows whose
    padding stays zero) give the bits of the runs in the shared working arrays, call after
    call, with another image in between."""
    x, w, b, attrs = case
    kept, shared = _banded(w, b, attrs, x), _banded(w, b, attrs, x)
    with _keeping(True):
        first = kept(x)
    with _keeping(False):
        expected = shared(x)
    strided = attrs["strides"][0] > 1
    assert kept._depthwise_runs and shared._depthwise_runs  # (a run per chunk's shape)
    assert all(r.kept and r.from_image == strided for r in kept._depthwise_runs.values())
    assert not any(r.kept for r in shared._depthwise_runs.values())
    assert first.tobytes() == expected.tobytes()
    other = np.ascontiguousarray(x[::-1]) * 2  # another image through the same arrays
    assert kept(other).tobytes() == shared(other).tobytes()
    assert kept(x).tobytes() == expected.tobytes()


@pytest.mark.parametrize("stride", [1, 2])
def test_runs_of_one_kind_share_their_arrays(stride: int) -> None:
    """Convolutions of the same shape and geometry (ShuffleNet's units of a stage) share
    their working arrays when kept, and each still gives its own bits, in any order; two
    threads keep arrays of their own."""
    rng = np.random.default_rng(11)
    work = WorkingArrays()
    convs = [_depthwise(rng, 16, stride, work) for _ in range(3)]
    no_bias = prepare_conv(convs[0].weight, None, convs[0].attributes, work=work)
    assert no_bias is not None
    convs.append(no_bias)  # another kind (no column of ones)
    feeds = [rng.standard_normal((2, 16, 11, 11)).astype(np.float32) for _ in convs]
    expected = [_alone(conv)(x).tobytes() for conv, x in zip(convs, feeds, strict=True)]
    with _keeping(True):  # (a run is made at its shape's first call)
        for at in (0, 1, 2, 3, 1, 0, 3, 2):
            assert convs[at](feeds[at]).tobytes() == expected[at]
    assert all(run.kept for conv in convs for run in conv._depthwise_runs.values())
    kinds = {name for name in work.blocks if name.startswith("depthwise")}
    assert len(kinds) == 2 * (1 if stride > 1 else 2)  # rows (and padded) of two kinds
    failures: list[int] = []

    def run(k: int) -> None:
        for _ in range(100):
            if convs[k](feeds[k]).tobytes() != expected[k]:
                failures.append(k)

    run_in_threads(run, 2)
    assert not failures
