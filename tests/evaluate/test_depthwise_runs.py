"""The depthwise convolutions' runs per input shape (``ops/conv/depthwise.py``, ``DepthwiseRun``)
and the image function chosen with a prepared Conv's layout: views of the plan's shared
working arrays kept between calls must follow those arrays when another convolution grows
them, and when another thread runs the same convolution."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft.ops.conv.depthwise import DepthwiseRun
from onnxcraft.ops.conv.prepared import PreparedConv, prepare_conv
from onnxcraft.ops.conv.scratch import WorkingArrays


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


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.lists(
        st.tuples(st.integers(1, 3), st.integers(2, 24), st.integers(1, 2), st.integers(1, 9)),
        min_size=2,
        max_size=4,
    ),
    order=st.lists(st.integers(0, 3), min_size=4, max_size=12),
)
def test_shared_working_arrays_grown_between_calls(
    seed: int, sizes: list[tuple[int, int, int, int]], order: list[int]
) -> None:
    """Convolutions of drawn sizes sharing one WorkingArrays, called in a drawn order (each
    call may grow the blocks another one's views were made of): the same bits as each
    convolution with working arrays of its own."""
    rng = np.random.default_rng(seed)
    work = WorkingArrays()
    convs = [_depthwise(rng, c, stride, work) for _, c, stride, _ in sizes]
    alone = [_alone(prepared) for prepared in convs]
    inputs = [rng.standard_normal((n, c, side, side)).astype(np.float32) for n, c, _, side in sizes]
    for at in order:
        i = at % len(convs)
        got = convs[i](inputs[i])
        assert convs[i]._layout_for(inputs[i]).name == "depthwise"  # type: ignore[union-attr]
        assert got.tobytes() == alone[i](inputs[i]).tobytes()
    assert max(len(work.blocks), 1) <= 3  # padded, cols, products: shared, not per conv


@pytest.mark.parametrize("stride", [1, 2])
def test_threads_share_a_convolution(stride: int) -> None:
    """Two threads running the same prepared depthwise convolution at once, each with its own
    working arrays (thread-local) and so its own views, get the bits of a lone run (strided:
    each with rows of its own, their padding's zeros made once)."""
    rng = np.random.default_rng(7)
    prepared = _depthwise(rng, 24, stride, WorkingArrays())
    alone = _alone(prepared)
    feeds = [rng.standard_normal((1, 24, 14, 14)).astype(np.float32) for _ in range(2)]
    expected = [alone(x).tobytes() for x in feeds]
    failures: list[int] = []

    def work(k: int) -> None:
        for _ in range(200):
            if prepared(feeds[k]).tobytes() != expected[k]:
                failures.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
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


def _through_padded_image(prepared: PreparedConv) -> None:
    """Make ``prepared``'s depthwise runs copy their rectangles from a padded image, as the
    stride-1 runs do, however strided."""
    for run in prepared._depthwise_runs.values():
        run.from_image = False


@st.composite
def strided_depthwise(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
    """Depthwise convolutions with a vertical stride of 2 or 3 (the runs that copy their
    rectangles from the image): any kernel, dilation, padding and horizontal stride, batches
    of 1 to 3, inputs that may be views of another layout, values that may be inf or NaN."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    c = draw(st.integers(1, 12))
    kernel = [draw(st.integers(1, 5)) for _ in range(2)]
    strides = [draw(st.integers(2, 3)), draw(st.integers(1, 3))]
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


@settings(max_examples=150, deadline=None)
@given(case=strided_depthwise())
def test_rectangles_from_the_image_are_the_padded_images(case: tuple) -> None:
    """Strided runs copy their rectangles straight from the image into rows whose padding
    stays zero: the same bits as the rectangles of a padded image, call after call."""
    x, w, b, attrs = case
    prepared = prepare_conv(w, b, attrs)
    padded = prepare_conv(w, b, attrs)
    assert prepared is not None and padded is not None
    for conv in (prepared, padded):  # the banded products, whatever the layout chosen
        layout = conv._layout_for(x)
        assert layout is not None
        conv._layouts[x.shape[1:]] = type(layout)(layout.geom, "depthwise")
    first = prepared(x)
    padded(x)
    _through_padded_image(padded)
    runs = list(prepared._depthwise_runs.values())
    assert runs and all(isinstance(run, DepthwiseRun) and run.from_image for run in runs)
    expected = padded(x)
    assert first.tobytes() == expected.tobytes()
    other = np.ascontiguousarray(x[::-1])  # another image through the same rows
    assert prepared(other).tobytes() == padded(other).tobytes()
    assert prepared(x).tobytes() == expected.tobytes()
