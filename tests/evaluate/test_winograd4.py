"""Winograd's F(4x4, 3x3) in the prepared convolutions (``ops/conv/winograd4.py``,
``fuse=True``).

Its transforms grow the terms' absolute sizes up to 256 times where F(2x2, 3x3)'s grow them
7.1 times (the module's docstring derives both from the transforms' coefficients), so it is
held to 36 times F(2x2, 3x3)'s bound, relative to the largest value of the convolution of
absolute values in each output channel: 7.2e-5 in float32, 14 times inside the ONNX backend
tests' rtol of 1e-3. The largest error seen on 1,500 drawn convolutions and the zoo's
shapes is 3.1e-6 in float32 and 7.4e-15 in float64.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.ops.conv import winograd4
from onnxcraft.ops.conv.kernels import conv
from onnxcraft.ops.conv.prepared import PreparedConv, prepare_conv
from onnxcraft.opset.ai.onnx import v21 as op
from tests.evaluate.test_winograd_batches import batch_with_residual

# F(2x2, 3x3)'s bounds (tests/evaluate/test_prepared_conv.py) times the growth ratio 256 / 7.1
RELATIVE = {np.float32: 36 * 2e-6, np.float64: 36 * 1e-14}


def _force(prepared: PreparedConv, x: np.ndarray) -> None:
    prepared._layout_for(x)
    key = x.shape[1:]
    prepared._layouts[key] = type(prepared._layouts[key])(prepared._layouts[key].geom, "winograd4")


def _limit(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, attrs: dict) -> np.ndarray:
    """The bound, per output channel, on the distance to the written kernel."""
    magnitude = conv(np.abs(x), np.abs(w), None if b is None else np.abs(b), **attrs)
    if magnitude.size:
        magnitude = np.broadcast_to(magnitude.max(axis=(2, 3), keepdims=True), magnitude.shape)
    return RELATIVE[x.dtype.type] * (magnitude + np.finfo(x.dtype).tiny)  # type: ignore[no-any-return]


def _within_bound(got: np.ndarray, expected: np.ndarray, limit: np.ndarray) -> None:
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert (np.abs(got.astype(np.float64) - expected) <= limit).all()


@st.composite
def three_by_three(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
    """3x3 stride-1 convolutions: any padding (asymmetric too), sizes of any remainder by 4."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pads = draw(st.lists(st.integers(0, 2), min_size=4, max_size=4))
    h = draw(st.integers(max(1, 3 - pads[0] - pads[2]), 19))
    w = draw(st.integers(max(1, 3 - pads[1] - pads[3]), 19))
    c, m = draw(st.integers(1, 24)), draw(st.integers(1, 24))
    x = rng.standard_normal((draw(st.integers(0, 3)), c, h, w)).astype(dtype)
    weight = rng.standard_normal((m, c, 3, 3)).astype(dtype)
    b = rng.standard_normal(m).astype(dtype) if draw(st.booleans()) else None
    attrs: dict = {"pads": pads}
    if draw(st.integers(0, 4)) == 0:
        attrs = {"auto_pad": draw(st.sampled_from(["SAME_UPPER", "SAME_LOWER", "VALID"]))}
        if attrs["auto_pad"] == "VALID" and min(h, w) < 3:
            attrs = {"pads": pads}
    return x, weight, b, attrs


@settings(max_examples=80, deadline=None)
@given(case=three_by_three())
def test_winograd4_within_its_bound_of_the_written_kernel(case: tuple) -> None:
    x, w, b, attrs = case
    prepared = prepare_conv(w, b, attrs)
    assert prepared is not None
    _force(prepared, x)
    limit = _limit(x, w, b, attrs)
    written = conv(x, w, b, **attrs)
    _within_bound(prepared(x), written, limit)
    _within_bound(prepared(x), written, limit)  # again, with the working arrays reused


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from([np.float32, np.float64]),
    n=st.integers(1, 13),
    size=st.sampled_from([(13, 14), (14, 14), (7, 7), (9, 6), (37, 34)]),
    pads=st.lists(st.integers(0, 2), min_size=4, max_size=4),
    bias=st.booleans(),
)
def test_winograd4_batches_with_add_and_relu_within_its_bound(
    seed: int, dtype: type, n: int, size: tuple[int, int], pads: list[int], bias: bool
) -> None:
    """Up to 13 images (side by side in chunks when they have 64 tiles or fewer, the last
    chunk short; one at a time at 37 x 34), the residual Add and the Relu after the product:
    the written kernel's sum within the bound, then the exact Add and Relu."""
    got, expected, attrs, x, w, b = batch_with_residual(
        "winograd4", seed, dtype, (n, 6, *size), 5, pads, bias
    )
    _within_bound(got, expected, _limit(x, w, b, attrs))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [(34, 35), (12, 13)])
def test_winograd4_writes_into_a_slice_of_a_wider_output(
    dtype: type, size: tuple[int, int]
) -> None:
    """``out`` a channel slice of a Concat's output (not contiguous): written in place when
    the images go one at a time (35 x 34 outputs: more than 64 tiles), the other channels
    untouched."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 7, *size)).astype(dtype)
    w = rng.standard_normal((4, 7, 3, 3)).astype(dtype)
    b = rng.standard_normal(4).astype(dtype)
    attrs = {"pads": [1, 0, 2, 1]}
    written = conv(x, w, b, **attrs)
    wide = np.full((2, 9, *written.shape[2:]), 7.0, dtype)
    prepared = PreparedConv(w, b, attrs)
    _force(prepared, x)
    got = prepared(x, out=wide[:, 3:7])
    _within_bound(got, written, _limit(x, w, b, attrs))
    if np.shares_memory(got, wide):
        _within_bound(wide[:, 3:7], written, _limit(x, w, b, attrs))
    assert size[0] < 30 or np.shares_memory(got, wide)
    assert (wide[:, :3] == 7).all() and (wide[:, 7:] == 7).all()


@pytest.mark.parametrize(
    ("c", "size", "m"),
    [(64, 56, 64), (128, 28, 128), (256, 14, 256), (512, 7, 512), (16, 55, 64), (64, 13, 256)],
)
def test_winograd4_on_the_zoo_shapes_within_its_bound(c: int, size: int, m: int) -> None:
    """Channel counts of the models (the products' sums run over up to 512 channels)."""
    rng = np.random.default_rng(c + size)
    x = rng.standard_normal((2, c, size, size)).astype(np.float32)
    w = (rng.standard_normal((m, c, 3, 3)) * np.sqrt(2 / (9 * c))).astype(np.float32)
    b = rng.uniform(-0.1, 0.1, m).astype(np.float32)
    attrs = {"pads": [1] * 4}
    prepared = PreparedConv(w, b, attrs)
    _force(prepared, x)
    _within_bound(prepared(x), conv(x, w, b, **attrs), _limit(x, w, b, attrs))


def test_the_transforms_compute_the_correlation_exactly() -> None:
    """In exact arithmetic, A^T [(G g) * (B^T d)] is the 4 outputs of a 3-tap correlation
    (the matrices' entries are small integers or sixths, twelfths and twenty-fourths)."""

    def exact(matrix: np.ndarray) -> list[list[Fraction]]:
        return [[Fraction(v).limit_denominator(24) for v in row] for row in matrix]

    bt, g_, at = exact(winograd4._BT), exact(winograd4._G), exact(winograd4._AT)
    rng = np.random.default_rng(0)
    for _ in range(20):
        d = [Fraction(int(v)) for v in rng.integers(-50, 50, 6)]
        g = [Fraction(int(v)) for v in rng.integers(-50, 50, 3)]
        u = [sum(row[k] * g[k] for k in range(3)) for row in g_]
        v = [sum(row[i] * d[i] for i in range(6)) for row in bt]
        y = [sum(row[a] * u[a] * v[a] for a in range(6)) for row in at]
        assert y == [sum(g[k] * d[p + k] for k in range(3)) for p in range(4)]


def test_fuse_false_runs_the_written_kernel() -> None:
    """A convolution prepared as F(4x4, 3x3) under ``fuse=True``; ``fuse=False`` runs the
    node as written, bit for bit the kernel."""
    rng = np.random.default_rng(11)
    weight = (rng.standard_normal((128, 128, 3, 3)) * 0.03).astype(np.float32)
    x = oc.arg("X", np.float32, (1, 128, 28, 28))
    model = oc.build([x], {"Y": op.Conv(x, weight, pads=[1, 1, 1, 1])})
    feed = rng.standard_normal((1, 128, 28, 28)).astype(np.float32)
    fused = oc.Evaluator(model)
    got = fused.run({"X": feed})["Y"]
    steps = [s.fn for s in fused._plan.steps if isinstance(s.fn, PreparedConv)]
    assert [layout.name for s in steps for layout in s._layouts.values()] == ["winograd4"]
    unfused = oc.Evaluator(model, fuse=False)._plan.steps
    assert not any(isinstance(s.fn, PreparedConv) for s in unfused)
    as_written = oc.evaluate(model, {"X": feed}, fuse=False)["Y"]
    np.testing.assert_array_equal(as_written, conv(feed, weight, None, pads=[1, 1, 1, 1]))
    _within_bound(got, as_written, _limit(feed, weight, None, {"pads": [1] * 4}))


@pytest.mark.parametrize("pads", [[1, 1, 1, 1], [0, 2, 1, 0], [0, 0, 0, 0]])
def test_winograd4_reads_nothing_stale_from_its_working_arrays(pads: list[int]) -> None:
    """A larger input of NaN first, through the same working arrays: only the padding the
    next input needs is zeroed, and no NaN of the first call reaches its output."""
    rng = np.random.default_rng(4)
    w = rng.standard_normal((5, 6, 3, 3)).astype(np.float32)
    prepared = PreparedConv(w, None, {"pads": pads})
    stale = np.full((2, 6, 23, 21), np.nan, np.float32)
    _force(prepared, stale)
    assert np.isnan(prepared(stale)).all()
    x = rng.standard_normal((1, 6, 10, 9)).astype(np.float32)
    _force(prepared, x)
    _within_bound(prepared(x), conv(x, w, None, pads=pads), _limit(x, w, None, {"pads": pads}))


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "layouts"),
    [
        # 16 tiles an image: F(4x4, 3x3) from 2 images on (32 tiles or more)
        ((256, 14, 14), (256, 256, 3, 3), {1: "winograd", 2: "winograd4", 4: "winograd4"}),
        ((128, 14, 14), (256, 128, 3, 3), {1: "im2col", 8: "winograd4"}),
        ((128, 20, 20), (128, 128, 3, 3), {1: "rows", 2: "winograd4"}),  # 25 tiles an image
        # 28 x 28 and 56 x 56 (49 and 196 tiles an image): from one image on
        ((128, 28, 28), (128, 128, 3, 3), {1: "winograd4", 8: "winograd4"}),
        ((64, 56, 56), (64, 64, 3, 3), {1: "winograd4", 2: "winograd4"}),
        # never: too few channels in, or 7x7 outputs
        ((32, 27, 27), (128, 32, 3, 3), {1: "im2col", 8: "im2col"}),
        ((512, 7, 7), (512, 512, 3, 3), {1: "im2col", 16: "im2col"}),
    ],
)
def test_winograd4_needs_enough_tiles_in_the_batch(
    x_shape: tuple, w_shape: tuple, layouts: dict[int, str]
) -> None:
    """The layout is chosen per image shape; with fewer tiles than ``_WINOGRAD4_COLUMNS`` in
    the batch a prepared convolution runs the layout it would have had without F(4x4, 3x3)."""
    prepared = PreparedConv(np.zeros(w_shape, np.float32), None, {"pads": [1] * 4})
    for n, name in layouts.items():
        layout = prepared._layout_for(np.zeros((n, *x_shape), np.float32))
        assert layout is not None and layout.name == name
