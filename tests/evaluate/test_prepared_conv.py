"""Convolutions prepared with their constant weights (``ops/conv/prepared.py``, ``fuse=True``).

The prepared layouts sum the products in another order than the kernel as written, so each is
held, over drawn geometries, within float rounding of the written kernel: elementwise, the
difference is at most ``RELATIVE`` times the convolution of the absolute values (the size of
the sum's terms, the scale a dot product's rounding error is measured in). The residual Add
and the Relu are exact.
"""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.errors import EvaluationError
from onnxcraft.ops.conv import prepared as prepared_module
from onnxcraft.ops.conv.depthwise import Blocks, block_width
from onnxcraft.ops.conv.kernels import conv, conv_geometry
from onnxcraft.ops.conv.prepared import PreparedConv, choose_layout, prepare_conv
from onnxcraft.ops.conv.scratch import WorkingArrays
from onnxcraft.opset.ai.onnx import v21 as op
from tests.evaluate._threads import run_in_threads

RELATIVE = {np.float32: 2e-6, np.float64: 1e-14}
LAYOUTS = ("taps", "rows", "im2col", "flat", "phases")


def _within_rounding(
    got: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    attrs: dict,
    *,
    per_channel: bool = False,
) -> None:
    """Elementwise within ``RELATIVE`` of the convolution of absolute values (or, with
    ``per_channel``, of its largest value in the output channel: Winograd's transforms mix a
    4x4 tile, so an output's error follows its neighbours' magnitudes too)."""
    written = conv(x, w, b, **attrs)
    assert got.shape == written.shape and got.dtype == written.dtype
    magnitude = conv(np.abs(x), np.abs(w), None if b is None else np.abs(b), **attrs)
    if per_channel and magnitude.size:
        magnitude = np.broadcast_to(magnitude.max(axis=(2, 3), keepdims=True), magnitude.shape)
    limit = RELATIVE[x.dtype.type] * (magnitude + np.finfo(x.dtype).tiny)
    assert (np.abs(got.astype(np.float64) - written) <= limit).all()


def _force(prepared: PreparedConv, x: np.ndarray, layout: str) -> None:
    """Make ``prepared`` use ``layout`` for inputs shaped like ``x``."""
    prepared._layout_for(x)  # resolves and caches the geometry
    key = x.shape[1:]
    prepared._layouts[key] = type(prepared._layouts[key])(prepared._layouts[key].geom, layout)


@st.composite
def stride_one_convs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
    """2-D, ungrouped, stride-1 convolutions: every layout applies."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(0, 3))
    c, m = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    pads = draw(st.lists(st.integers(0, 3), min_size=4, max_size=4))
    h = draw(st.integers(max(1, (kh - 1) * dh + 1 - pads[0] - pads[2]), 11))
    width = draw(st.integers(max(1, (kw - 1) * dw + 1 - pads[1] - pads[3]), 11))
    x = rng.standard_normal((n, c, h, width)).astype(dtype)
    w = rng.standard_normal((m, c, kh, kw)).astype(dtype)
    b = rng.standard_normal(m).astype(dtype) if draw(st.booleans()) else None
    attrs = {"pads": pads, "dilations": [dh, dw], "strides": [1, 1]}
    if draw(st.booleans()):
        attrs = {"auto_pad": draw(st.sampled_from(["SAME_UPPER", "SAME_LOWER", "VALID"]))}
        attrs["dilations"] = [dh, dw]
    return x, w, b, attrs


@settings(max_examples=60, deadline=None)
@given(case=stride_one_convs(), layout=st.sampled_from(LAYOUTS))
def test_each_layout_within_rounding_of_the_written_kernel(case: tuple, layout: str) -> None:
    x, w, b, attrs = case
    prepared = prepare_conv(w, b, attrs)
    assert prepared is not None
    _force(prepared, x, layout)
    _within_rounding(prepared(x), x, w, b, attrs)
    _within_rounding(prepared(x), x, w, b, attrs)  # again, with the working arrays reused


@st.composite
def three_by_three(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
    """3x3 stride-1 convolutions with any padding: what Winograd's F(2x2, 3x3) covers."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pads = draw(st.lists(st.integers(0, 2), min_size=4, max_size=4))
    h = draw(st.integers(max(1, 3 - pads[0] - pads[2]), 12))
    w = draw(st.integers(max(1, 3 - pads[1] - pads[3]), 12))
    c, m = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    x = rng.standard_normal((draw(st.integers(0, 3)), c, h, w)).astype(dtype)
    weight = rng.standard_normal((m, c, 3, 3)).astype(dtype)
    b = rng.standard_normal(m).astype(dtype) if draw(st.booleans()) else None
    return x, weight, b, {"pads": pads}


@settings(max_examples=60, deadline=None)
@given(case=three_by_three())
def test_winograd_within_rounding_of_the_written_kernel(case: tuple) -> None:
    x, w, b, attrs = case
    prepared = prepare_conv(w, b, attrs)
    assert prepared is not None
    _force(prepared, x, "winograd")
    _within_rounding(prepared(x), x, w, b, attrs, per_channel=True)
    _within_rounding(prepared(x), x, w, b, attrs, per_channel=True)


@st.composite
def any_convs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
    """Strides, groups (depthwise too), 1-D and 3-D: what the layouts leave to the im2col."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    nd = draw(st.sampled_from([1, 2, 2, 3]))
    group = draw(st.sampled_from([1, 2, 3]))
    per_group = draw(st.integers(1, 3))
    c = group * per_group
    m = group * draw(st.integers(1, 3))
    if draw(st.booleans()):
        c = m = group  # depthwise
    n = draw(st.integers(0, 3))
    kernel = [draw(st.integers(1, 3)) for _ in range(nd)]
    strides = [draw(st.integers(1, 3)) for _ in range(nd)]
    pads = [draw(st.integers(0, 2)) for _ in range(2 * nd)]
    spatial = [draw(st.integers(k, k + 6)) for k in kernel]
    x = rng.standard_normal((n, c, *spatial)).astype(dtype)
    w = rng.standard_normal((m, c // group, *kernel)).astype(dtype)
    b = rng.standard_normal(m).astype(dtype) if draw(st.booleans()) else None
    return x, w, b, {"pads": pads, "strides": strides, "group": group}


@settings(max_examples=60, deadline=None)
@given(case=any_convs())
def test_every_convolution_within_rounding_of_the_written_kernel(case: tuple) -> None:
    x, w, b, attrs = case
    prepared = prepare_conv(w, b, attrs)
    assert prepared is not None
    _within_rounding(prepared(x), x, w, b, attrs)


@st.composite
def strided_grouped_2d(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
    """2-D convolutions with strides, dilations and groups (depthwise too), never empty."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    group = draw(st.sampled_from([1, 2, 3]))
    c = group * draw(st.integers(1, 3))
    m = group * draw(st.integers(1, 3))
    if draw(st.booleans()):
        c = m = group  # depthwise
    kernel = [draw(st.integers(1, 3)) for _ in range(2)]
    strides = [draw(st.integers(1, 3)) for _ in range(2)]
    dilations = [draw(st.integers(1, 2)) for _ in range(2)]
    pads = [draw(st.integers(0, 2)) for _ in range(4)]
    spatial = [
        draw(st.integers(max(1, (k - 1) * d + 1 - pads[i] - pads[i + 2]), 12))
        for i, (k, d) in enumerate(zip(kernel, dilations, strict=True))
    ]
    x = rng.standard_normal((draw(st.integers(1, 3)), c, *spatial)).astype(dtype)
    w = rng.standard_normal((m, c // group, *kernel)).astype(dtype)
    b = rng.standard_normal(m).astype(dtype) if draw(st.booleans()) else None
    attrs = {"pads": pads, "strides": strides, "dilations": dilations, "group": group}
    return x, w, b, attrs


@settings(max_examples=80, deadline=None)
@given(case=strided_grouped_2d(), layout=st.sampled_from(["im2col", "flat", "phases"]))
def test_strided_grouped_layouts_within_rounding(case: tuple, layout: str) -> None:
    x, w, b, attrs = case
    prepared = prepare_conv(w, b, attrs)
    assert prepared is not None
    _force(prepared, x, layout)
    _within_rounding(prepared(x), x, w, b, attrs)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("images_at_once", [1, 2, 5])
def test_batches_in_chunks_within_rounding(
    layout: str, images_at_once: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Images convolved one at a time, two at a time (the last chunk short) or all at once."""
    monkeypatch.setattr(PreparedConv, "_images_at_once", lambda *_: images_at_once)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 12, 9, 11)).astype(np.float32)
    w = rng.standard_normal((6, 12, 3, 2)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    attrs = {"pads": [1, 0, 2, 1], "dilations": [1, 2]}
    residual = rng.standard_normal((5, 6, 1, 1)).astype(np.float32)
    prepared = prepare_conv(w, b, attrs, add=lambda a, c: a + c, relu=lambda y: y)
    assert prepared is not None
    _force(prepared, x, layout)
    got = prepared(x, residual)
    expected = np.maximum(conv(x, w, b, **attrs) + residual, 0)
    magnitude = conv(np.abs(x), np.abs(w), np.abs(b), **attrs) + np.abs(residual)
    assert (np.abs(got - expected) <= RELATIVE[np.float32] * magnitude).all()


@st.composite
def small_outputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
    """Batches of 2 to 7 images whose outputs have at most 64 positions: the im2col with the
    images' columns side by side (strides, dilations, groups and 1x1 kernels too)."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    group = draw(st.sampled_from([1, 1, 2, 3]))
    c, m = group * draw(st.integers(1, 4)), group * draw(st.integers(1, 4))
    kernel = [draw(st.integers(1, 3)) for _ in range(2)]
    strides = [draw(st.integers(1, 2)) for _ in range(2)]
    dilations = [draw(st.integers(1, 2)) for _ in range(2)]
    pads = [draw(st.integers(0, 1)) for _ in range(4)]
    spatial = [
        draw(st.integers(max(1, (k - 1) * d + 1 - pads[i] - pads[i + 2]), 9))
        for i, (k, d) in enumerate(zip(kernel, dilations, strict=True))
    ]
    x = rng.standard_normal((draw(st.integers(2, 7)), c, *spatial)).astype(dtype)
    w = rng.standard_normal((m, c // group, *kernel)).astype(dtype)
    b = rng.standard_normal(m).astype(dtype) if draw(st.booleans()) else None
    attrs = {"pads": pads, "strides": strides, "dilations": dilations, "group": group}
    return x, w, b, attrs


@settings(max_examples=80, deadline=None)
@given(case=small_outputs(), columns=st.sampled_from([1, 100, 512]))
def test_side_by_side_images_within_rounding(case: tuple, columns: int) -> None:
    """Small outputs of several images in one product (all images, or a few at a time with
    the last chunk short), with the residual Add and the Relu after it."""
    x, w, b, attrs = case
    prepared = prepare_conv(w, b, attrs, add=lambda a, c: a + c, relu=lambda y: y)
    assert prepared is not None
    _force(prepared, x, "im2col")
    written = conv(x, w, b, **attrs)
    residual = np.random.default_rng(1).standard_normal(written.shape).astype(x.dtype)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(prepared_module, "_SIDE_BY_SIDE_COLUMNS", columns)
        got = prepared(x, residual)
    magnitude = conv(np.abs(x), np.abs(w), None if b is None else np.abs(b), **attrs)
    limit = RELATIVE[x.dtype.type] * (magnitude + np.abs(residual) + np.finfo(x.dtype).tiny)
    assert got.shape == written.shape
    assert (np.abs(got - np.maximum(written + residual, 0)) <= limit).all()
    _within_rounding(prepare_conv(w, b, attrs)(x), x, w, b, attrs)  # type: ignore[misc]


@pytest.mark.parametrize("band_values", [1, 200, 1 << 19])
def test_phases_in_bands_within_rounding(band_values: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The phases layout a band of output rows at a time: one row, a few, or all at once."""
    monkeypatch.setattr(prepared_module, "_PHASES_BAND_VALUES", band_values)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 23, 20)).astype(np.float32)
    w = rng.standard_normal((4, 3, 7, 5)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    attrs = {"pads": [3, 2, 1, 2], "strides": [2, 3]}
    prepared = prepare_conv(w, b, attrs)
    assert prepared is not None
    _force(prepared, x, "phases")
    _within_rounding(prepared(x), x, w, b, attrs)


@pytest.mark.parametrize("layout", [*LAYOUTS, "winograd"])
def test_inputs_that_are_views_within_rounding(layout: str) -> None:
    """A transposed or sliced input (another step's view) reads as its values."""
    rng = np.random.default_rng(9)
    base = rng.standard_normal((3, 10, 9, 12)).astype(np.float32)
    w = rng.standard_normal((5, 10, 3, 3)).astype(np.float32)
    attrs = {"pads": [1, 1, 1, 1]}
    for x in (base.transpose(0, 1, 3, 2), base[:, :, ::-1, 1:10], base[::2]):
        prepared = prepare_conv(w, None, attrs)
        assert prepared is not None
        _force(prepared, x, layout)
        _within_rounding(prepared(x), x, w, None, attrs, per_channel=layout == "winograd")


@st.composite
def same_width_convs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
    """2-D stride-1 convolutions with as many output columns as input columns (left + right
    padding = the kernel's dilated width - 1), inputs and weights holding NaN, infinities
    and zeros of both signs now and then."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, c, m = draw(st.integers(1, 3)), draw(st.integers(1, 9)), draw(st.integers(1, 6))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(2, 5))
    dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    left = draw(st.integers(0, (kw - 1) * dw))
    top, bottom = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    h = draw(st.integers(max(1, (kh - 1) * dh + 1 - top - bottom), 9))
    width = draw(st.integers(1, 9))
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])

    def drawn(shape: tuple[int, ...]) -> np.ndarray:
        values = rng.standard_normal(shape)
        if draw(st.booleans()):
            spots = rng.random(shape) < 0.05
            values[spots] = rng.choice(specials, int(spots.sum()))
        return values.astype(dtype)

    x, w = drawn((n, c, h, width)), drawn((m, c, kh, kw))
    b = drawn((m,)) if draw(st.booleans()) else None
    pads = [top, left, bottom, (kw - 1) * dw - left]
    return x, w, b, {"pads": pads, "dilations": [dh, dw]}


@settings(max_examples=80, deadline=None)
@given(case=same_width_convs(), relu_first=st.booleans())
def test_taps_without_padding_columns_sum_what_the_padded_grid_sums(
    case: tuple, relu_first: bool
) -> None:
    """With a "same" padding the taps layout's grid has no padding columns, and the products
    read across a row's edge are mended: the outputs are the values of the padded grid's sums
    (computed here by padding the columns explicitly, which takes the padded grid), NaN
    where they are NaN, with the Relu moved into the copy or not."""
    x, w, b, attrs = case
    top, left, bottom, right = attrs["pads"]
    relu = (lambda v: np.maximum(v, 0)) if relu_first else None
    unpadded = PreparedConv(w, b, attrs, input_relu=relu)
    widened = np.pad(x, ((0, 0), (0, 0), (0, 0), (left, right)))
    padded = PreparedConv(w, b, {**attrs, "pads": [top, 0, bottom, 0]}, input_relu=relu)
    _force(unpadded, x, "taps")
    _force(padded, widened, "taps")
    got, expected = unpadded(x.copy()), padded(widened)
    assert np.array_equal(got, expected, equal_nan=True)
    assert np.array_equal(unpadded(x.copy()), expected, equal_nan=True)  # working arrays again


def _geometry(x_shape: tuple, w_shape: tuple, **attrs: object):  # type: ignore[no-untyped-def]
    x, w = np.zeros(x_shape, np.float32), np.zeros(w_shape, np.float32)
    return conv_geometry(
        "Conv",
        x,
        w,
        kernel_shape=None,
        strides=attrs.get("strides"),  # type: ignore[arg-type]
        dilations=attrs.get("dilations"),  # type: ignore[arg-type]
        pads=attrs.get("pads"),  # type: ignore[arg-type]
        auto_pad="NOTSET",
    )


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "attrs", "layout"),
    [
        ((1, 128, 56, 56), (32, 128, 3, 3), {"pads": [1] * 4}, "taps"),  # DenseNet
        ((1, 64, 56, 56), (64, 64, 3, 3), {"pads": [1] * 4}, "winograd4"),  # ResNet
        ((1, 64, 56, 56), (192, 64, 3, 3), {"pads": [1] * 4}, "winograd4"),  # Inception
        ((1, 256, 14, 14), (256, 256, 3, 3), {"pads": [1] * 4}, "winograd4"),
        ((1, 128, 28, 28), (128, 128, 3, 3), {"pads": [1] * 4}, "winograd4"),
        ((1, 256, 12, 12), (256, 256, 3, 3), {"pads": [1] * 4}, "winograd"),  # 3 tiles of 4
        ((1, 512, 7, 7), (512, 512, 3, 3), {"pads": [1] * 4}, "im2col"),  # padding costs
        ((1, 64, 13, 13), (256, 64, 3, 3), {"pads": [1] * 4}, "im2col"),  # SqueezeNet
        ((1, 32, 27, 27), (128, 32, 3, 3), {"pads": [1] * 4}, "im2col"),  # few channels in
        ((1, 128, 28, 28), (64, 128, 3, 3), {"pads": [1] * 4}, "rows"),  # fewer out than in
        ((1, 64, 56, 56), (64, 64, 3, 3), {"pads": [1] * 4, "dilations": [2, 2]}, "rows"),
        ((1, 64, 56, 56), (64, 64, 5, 5), {"pads": [2] * 4}, "rows"),
        ((1, 64, 56, 56), (64, 64, 3, 3), {"pads": [1] * 4, "strides": [2, 2]}, "im2col"),
        ((1, 3, 224, 224), (64, 3, 7, 7), {"pads": [3] * 4, "strides": [2, 2]}, "phases"),
        ((1, 256, 14, 14), (64, 256, 1, 1), {}, "im2col"),  # a view already
        ((1, 2, 9, 9), (6, 2, 3, 3), {"pads": [1] * 4}, "im2col"),  # too few terms to gain
    ],
)
def test_the_layout_chosen_for_each_shape(
    x_shape: tuple, w_shape: tuple, attrs: dict, layout: str
) -> None:
    geom = _geometry(x_shape, w_shape, **attrs)
    assert choose_layout(geom, x_shape[1], w_shape[0], 1) == layout


def test_depthwise_convolutions_take_the_banded_products() -> None:
    """Depthwise convolutions of any width take the banded products; grouped ones and those
    with several filters per channel do not."""
    geom = _geometry((1, 116, 14, 14), (116, 1, 3, 3), pads=[1] * 4)
    assert choose_layout(geom, 116, 116, 116) == "depthwise"
    strided = _geometry((1, 116, 28, 28), (116, 1, 3, 3), pads=[1] * 4, strides=[2, 2])
    assert choose_layout(strided, 116, 116, 116) == "depthwise"
    wide = _geometry((1, 32, 112, 112), (32, 1, 3, 3), pads=[1] * 4)
    assert choose_layout(wide, 32, 32, 32) == "depthwise"
    assert choose_layout(geom, 116, 232, 58) == "im2col"  # grouped, not depthwise
    assert choose_layout(geom, 116, 232, 116) == "flat"  # two filters per channel


@pytest.mark.parametrize(
    ("width", "stride", "blocks"),
    [
        (14, 1, Blocks(14, 1, 16, 16)),  # the whole row
        (28, 1, Blocks(14, 2, 16, 30)),
        (112, 1, Blocks(16, 7, 18, 114)),
        (56, 2, Blocks(14, 2, 29, 58)),
        (17, 1, Blocks(9, 2, 11, 20)),  # a prime width: the last block overruns
    ],
)
def test_depthwise_blocks(width: int, stride: int, blocks: Blocks) -> None:
    geom = _geometry((1, 4, width, width), (4, 1, 3, 3), pads=[1] * 4, strides=[stride] * 2)
    assert block_width(geom, width) == blocks


@st.composite
def depthwise_convs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
    """2-D depthwise convolutions (one filter per channel): any kernel, stride, dilation and
    padding, batches of 0 to 3, inputs that may be transposed views."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    c = draw(st.integers(1, 12))
    kernel = [draw(st.integers(1, 5)) for _ in range(2)]
    strides = [draw(st.integers(1, 3)) for _ in range(2)]
    dilations = [draw(st.integers(1, 2)) for _ in range(2)]
    pads = [draw(st.integers(0, 3)) for _ in range(4)]
    spatial = [
        draw(st.integers(max(1, (k - 1) * d + 1 - pads[i] - pads[i + 2]), 40))
        for i, (k, d) in enumerate(zip(kernel, dilations, strict=True))
    ]
    x = rng.standard_normal((draw(st.integers(0, 3)), c, *spatial)).astype(dtype)
    if draw(st.booleans()) and spatial[0] == spatial[1]:
        x = x.transpose(0, 1, 3, 2)  # another step's view
    w = rng.standard_normal((c, 1, *kernel)).astype(dtype)
    b = rng.standard_normal(c).astype(dtype) if draw(st.booleans()) else None
    attrs = {"pads": pads, "strides": strides, "dilations": dilations, "group": c}
    return x, w, b, attrs


@settings(max_examples=100, deadline=None)
@given(case=depthwise_convs())
def test_depthwise_banded_products_within_rounding(case: tuple) -> None:
    x, w, b, attrs = case
    prepared = prepare_conv(w, b, attrs)
    assert prepared is not None
    _force(prepared, x, "depthwise")
    _within_rounding(prepared(x), x, w, b, attrs)
    _within_rounding(prepared(x), x, w, b, attrs)  # again, with the working arrays reused


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "layout"),
    [
        ((2, 6, 10, 10), (6, 1, 3, 3), "depthwise"),
        ((2, 64, 16, 16), (64, 64, 3, 3), "winograd4"),  # 32 tiles of 4x4
        ((1, 256, 16, 16), (256, 256, 3, 3), "winograd"),  # too few tiles for F(4x4)
        ((1, 256, 8, 8), (256, 256, 3, 3), "winograd"),
    ],
)
@pytest.mark.parametrize("special", [np.inf, -np.inf, np.nan])
def test_layouts_that_mix_windows_leave_non_finite_inputs_where_the_kernel_does(
    x_shape: tuple, w_shape: tuple, layout: str, special: float
) -> None:
    """The banded depthwise products and Winograd's transforms combine values from outside an
    output's window (multiplied by zeros, or mixed in a tile): an infinity or NaN of the input
    would spread to outputs the written kernel leaves finite. For such inputs the im2col runs:
    the same outputs are NaN and infinite, with the same signs, as the written kernel's, the
    rest within rounding; finite inputs keep the faster layout."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = (rng.standard_normal(w_shape) / np.sqrt(np.prod(w_shape[1:]))).astype(np.float32)
    b = rng.standard_normal(w_shape[0]).astype(np.float32)
    attrs = {"pads": [1] * 4, "group": x_shape[1] if layout == "depthwise" else 1}
    prepared = prepare_conv(w, b, attrs)
    assert prepared is not None
    assert prepared._layout_for(x).name == layout
    x[0, 0, 3, 4] = special
    got, written = prepared(x), conv(x, w, b, **attrs)
    assert not np.isfinite(written).all() and np.isfinite(written).any()
    assert np.array_equal(np.isnan(got), np.isnan(written))
    assert np.array_equal(got[np.isinf(written)], written[np.isinf(written)])
    finite = np.isfinite(written)
    assert np.isfinite(got[finite]).all()
    target = np.full(written.shape, 7.0, np.float32)  # an output array given (a Concat's)
    assert prepared(x, out=target) is target
    assert np.array_equal(target, got, equal_nan=True)
    x[0, 0, 3, 4] = 0.5  # finite again: the layout's own product
    _within_rounding(prepared(x), x, w, b, attrs, per_channel=layout != "depthwise")


def test_the_finiteness_check_of_the_mixing_layouts() -> None:
    """Values whose squares overflow are still finite; a strided view is checked too."""
    big = np.full((2, 3, 4, 4), 3e30, np.float32)
    with np.errstate(all="ignore"):  # as inside PreparedConv.__call__
        assert prepared_module._all_finite(big)
        assert prepared_module._all_finite(big[:, :, ::2])
        assert prepared_module._all_finite(np.zeros((0, 3, 4, 4), np.float32))
        for special in (np.inf, -np.inf, np.nan):
            big[1, 2, 3, 3] = special
            assert not prepared_module._all_finite(big)
            assert not prepared_module._all_finite(big[:, :, 1::2])


def test_an_infinite_input_stays_in_its_windows_through_the_evaluator() -> None:
    """A depthwise Conv + Relu evaluated with ``fuse=True`` leaves an infinity of the input to
    the outputs whose windows hold it, as ``fuse=False`` does."""
    rng = np.random.default_rng(3)
    X = oc.arg("X", np.float32, (1, 8, 12, 12))
    w = rng.standard_normal((8, 1, 3, 3)).astype(np.float32)
    model = oc.build([X], {"Y": op.Relu(op.Conv(X, w, pads=(1, 1, 1, 1), group=8))})
    x = rng.standard_normal((1, 8, 12, 12)).astype(np.float32)
    x[0, 2, 5, 5] = -np.inf
    fused = oc.evaluate(model, {"X": x})["Y"]
    written = oc.evaluate(model, {"X": x}, fuse=False)["Y"]
    assert np.array_equal(np.isfinite(fused), np.isfinite(written))
    windows = (0, 2, slice(4, 7), slice(4, 7))  # the nine outputs whose windows hold it
    assert np.array_equal(fused[windows], written[windows])  # inf, or 0 after the Relu
    assert not np.isfinite(written[windows]).all()
    written[windows] = fused[windows] = 0
    finite = np.isfinite(written)
    assert finite.all()
    assert np.allclose(fused[finite], written[finite], rtol=1e-5, atol=1e-6)


def test_depthwise_residual_and_relu_exact_after_the_product() -> None:
    """The residual Add and the Relu after the banded products are the nodes' own."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 8, 9, 9)).astype(np.float32)
    w = rng.standard_normal((8, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    residual = rng.standard_normal((2, 8, 5, 5)).astype(np.float32)
    attrs = {"pads": [1] * 4, "strides": [2, 2], "group": 8}
    alone = prepare_conv(w, b, attrs)
    fused = prepare_conv(w, b, attrs, add=lambda a, c: a + c, relu=lambda y: y)
    assert alone is not None and fused is not None
    assert alone._layout_for(x) is not None and alone._layout_for(x).name == "depthwise"  # type: ignore[union-attr]
    expected = np.maximum(alone(x) + residual, 0)
    assert fused(x, residual).tobytes() == expected.tobytes()


def test_only_float_weights_of_the_bias_shape_are_prepared() -> None:
    w = np.ones((4, 2, 3, 3), np.float32)
    assert prepare_conv(w.astype(np.float16), None, {}) is None
    assert prepare_conv(w.astype(np.int32), None, {}) is None
    assert prepare_conv(w, np.ones(3, np.float32), {}) is None  # the kernel says why
    assert prepare_conv(w, np.ones(4, np.float64), {}) is None
    assert prepare_conv(w, None, {"group": 0}) is None
    assert prepare_conv(w, np.ones(4, np.float32), {}) is not None


def test_inputs_the_layouts_do_not_cover_run_as_written() -> None:
    rng = np.random.default_rng(4)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    prepared = prepare_conv(w, None, {"pads": [1] * 4})
    assert prepared is not None
    wrong_channels = rng.standard_normal((1, 5, 8, 8)).astype(np.float32)
    with pytest.raises(EvaluationError, match=r"Conv: weight W has 3 channels per group but X"):
        prepared(wrong_channels)
    with pytest.raises(EvaluationError, match=r"Conv: input X must have rank >= 3"):
        prepared(np.zeros((3, 8), np.float32))
    double = rng.standard_normal((1, 3, 8, 8))  # float64 against float32 weights
    np.testing.assert_array_equal(prepared(double), conv(double, w, pads=[1] * 4))


def test_working_arrays_are_reused_per_purpose_and_thread() -> None:
    work = WorkingArrays()
    first = work.take("test", (4, 5), np.dtype(np.float32))
    again = work.take("test", (2, 3), np.dtype(np.float64))
    assert np.shares_memory(first, again) and again.shape == (2, 3)
    seen: list[np.ndarray] = []
    thread = threading.Thread(target=lambda: seen.append(work.take("test", (4, 5), first.dtype)))
    thread.start()
    thread.join()
    assert not np.shares_memory(first, seen[0])
    assert not np.shares_memory(first, WorkingArrays().take("test", (4, 5), first.dtype))


def test_working_arrays_belong_to_the_evaluator() -> None:
    """One set for all the prepared convolutions of a plan, freed with the evaluator."""
    rng = np.random.default_rng(3)
    X = oc.arg("X", np.float32, (1, 8, 12, 12))
    w1, w2 = (rng.standard_normal((8, 8, 3, 3)).astype(np.float32) for _ in range(2))
    y = op.Conv(op.Conv(X, w1, pads=[1] * 4), w2, pads=[1] * 4)
    evaluator = oc.Evaluator(oc.build([X], {"Y": y}))
    prepared = [s.fn for s in evaluator._plan.steps if isinstance(s.fn, PreparedConv)]
    assert len(prepared) == 2 and prepared[0].work is prepared[1].work
    evaluator.run({"X": rng.standard_normal((1, 8, 12, 12)).astype(np.float32)})
    assert prepared[0].work.blocks  # used by this thread
    held = weakref.ref(prepared[0].work)
    del evaluator, prepared
    gc.collect()
    assert held() is None


# -- in the evaluator -------------------------------------------------------------------------


def _steps(model: object, *, fuse: bool = True) -> list[str]:
    return [step.node.op_type for step in oc.Evaluator(model, fuse=fuse)._plan.steps]


def _residual_block(rng: np.random.Generator, channels: int = 16) -> object:
    """x -> Conv -> Relu -> Conv -> Add(., shortcut Conv of x) -> Relu, the shortcut's Conv
    listed after the main branch (the fused Add must wait for it)."""
    x = oc.arg("X", np.float32, ("N", 8, 12, 12))

    def weights(m: int, c: int, k: int) -> np.ndarray:
        return (rng.standard_normal((m, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32)

    bias = rng.standard_normal(channels).astype(np.float32)
    main = op.Relu(op.Conv(x, weights(channels, 8, 3), bias, pads=[1] * 4))
    main = op.Conv(main, weights(channels, channels, 3), pads=[1] * 4)
    shortcut = op.Conv(x, weights(channels, 8, 1))
    return oc.build([x], {"Y": op.Relu(op.Add(main, shortcut))})


def test_residual_add_and_relu_join_the_conv() -> None:
    rng = np.random.default_rng(5)
    model = _residual_block(rng)
    assert _steps(model, fuse=False) == ["Conv", "Relu", "Conv", "Conv", "Add", "Relu"]
    assert _steps(model) == ["Conv", "Conv", "Conv"]
    for batch in (1, 3):
        feed = rng.standard_normal((batch, 8, 12, 12)).astype(np.float32)
        fused = oc.evaluate(model, {"X": feed})["Y"]
        written = oc.evaluate(model, {"X": feed}, fuse=False)["Y"]
        assert fused.dtype == np.float32 and (fused >= 0).all()
        np.testing.assert_allclose(fused, written, rtol=0, atol=1e-5 * np.abs(written).max())


def test_add_of_a_conv_with_itself_or_a_wider_value_stays_exact() -> None:
    rng = np.random.default_rng(6)
    x = oc.arg("X", np.float32, (1, 3, 6, 6))
    y = op.Conv(x, rng.standard_normal((4, 3, 1, 1)).astype(np.float32))
    doubled = oc.build([x], {"Y": op.Add(y, y)})
    assert _steps(doubled) == ["Conv", "Add"]
    wide = oc.arg("W", np.float32, (2, 4, 6, 6))  # broadcasts the Conv's output: not in place
    model = oc.build([x, wide], {"Y": op.Add(wide, y)})
    assert _steps(model) == ["Conv"]
    feeds = {
        "X": rng.standard_normal((1, 3, 6, 6)).astype(np.float32),
        "W": rng.standard_normal((2, 4, 6, 6)).astype(np.float32),
    }
    got = oc.evaluate(model, feeds)["Y"]
    assert got.shape == (2, 4, 6, 6)
    np.testing.assert_array_equal(got, oc.evaluate(model, feeds, fuse=False)["Y"])


def test_weights_a_feed_may_replace_and_float16_run_as_written() -> None:
    rng = np.random.default_rng(7)
    x = oc.arg("X", np.float16, (1, 3, 6, 6))
    half = oc.build([x], {"Y": op.Relu(op.Conv(x, np.ones((2, 3, 3, 3), np.float16)))})
    feed = rng.standard_normal((1, 3, 6, 6)).astype(np.float16)
    plan = oc.Evaluator(half)._plan
    assert not any(isinstance(step.fn, PreparedConv) for step in plan.steps)
    np.testing.assert_array_equal(
        oc.evaluate(half, {"X": feed})["Y"], oc.evaluate(half, {"X": feed}, fuse=False)["Y"]
    )
    x32 = oc.arg("X", np.float32, (1, 3, 6, 6))
    w = oc.arg("W", np.float32, (2, 3, 3, 3))
    fed = oc.build([x32, w], {"Y": op.Conv(x32, w)})
    assert not any(isinstance(s.fn, PreparedConv) for s in oc.Evaluator(fed)._plan.steps)


def test_a_prepared_evaluator_runs_from_two_threads() -> None:
    rng = np.random.default_rng(8)
    model = _residual_block(rng, channels=32)
    evaluator = oc.Evaluator(model)
    feeds = [rng.standard_normal((2, 8, 12, 12)).astype(np.float32) for _ in range(2)]
    expected = [evaluator.run({"X": f})["Y"] for f in feeds]
    results: dict[int, list[np.ndarray]] = {0: [], 1: []}

    def work(index: int) -> None:
        for _ in range(20):
            results[index].append(evaluator.run({"X": feeds[index]})["Y"])

    run_in_threads(work, 2)
    for index in range(2):
        for got in results[index]:
            np.testing.assert_array_equal(got, expected[index])
