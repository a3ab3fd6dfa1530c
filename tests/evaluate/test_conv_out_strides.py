"""Prepared convolutions writing a batch straight into a Concat's channel slice
(``_ANY_STRIDES`` in ``ops/conv/prepared.py``, ``fuse=True``): the same bits as into an array
of their own, with the slice itself returned (no copy after)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft.ops.conv.prepared import _ANY_STRIDES, PreparedConv, _Layout


def _forced(
    w: np.ndarray,
    b: np.ndarray | None,
    attrs: dict[str, Any],
    x: np.ndarray,
    layout: str,
    chunk: int = 0,
    **fused: Any,
) -> PreparedConv:
    prepared = PreparedConv(w, b, attrs, **fused)
    prepared._layout_for(x)
    key = x.shape[1:]
    geom = prepared._layouts[key].geom
    if chunk:  # images convolved at a time, as a layout chosen in the evaluator carries it
        image = PreparedConv._image(layout)
        prepared._layouts[key] = _Layout(geom, layout, image=image, at_once=chunk)
    else:
        prepared._layouts[key] = _Layout(geom, layout)
    return prepared


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    layout=st.sampled_from(sorted(_ANY_STRIDES)),
    dtype=st.sampled_from([np.float32, np.float64]),
    n=st.integers(2, 5),
    chunk=st.integers(1, 5),
    channels=st.sampled_from([(4, 4), (8, 2), (3, 6)]),
    size=st.sampled_from([(6, 6), (9, 7), (14, 14), (5, 12)]),
    pads=st.lists(st.integers(0, 1), min_size=4, max_size=4),
    bias=st.booleans(),
    residual=st.booleans(),
    relu=st.booleans(),
    before=st.integers(0, 3),
    after=st.integers(0, 3),
)
def test_batch_into_a_channel_slice_same_bits(
    seed: int,
    layout: str,
    dtype: type,
    n: int,
    chunk: int,
    channels: tuple[int, int],
    size: tuple[int, int],
    pads: list[int],
    bias: bool,
    residual: bool,
    relu: bool,
    before: int,
    after: int,
) -> None:
    """A batch of 2 to 5 images, in chunks of 1 to 5, written into channels
    [before, before + M) of a wider array (not contiguous per image block): the slice is the
    result, its values the bits of the same convolution (same chunks) into an array of its
    own, and the channels around it untouched."""
    rng = np.random.default_rng(seed)
    c, m = channels
    x = rng.standard_normal((n, c, *size)).astype(dtype)
    w = rng.standard_normal((m, c, 3, 3)).astype(dtype)
    b = rng.standard_normal(m).astype(dtype) if bias else None
    attrs = {"pads": pads}
    fused: dict[str, Any] = {}
    if residual:
        fused["add"] = np.add
    if relu:
        fused["relu"] = np.maximum
    into = _forced(w, b, attrs, x, layout, chunk, **fused)
    alone = _forced(w, b, attrs, x, layout, chunk, **fused)  # (chunks change BLAS's rounding)
    ho, wo = into._layouts[x.shape[1:]].geom.out_shape
    rest = rng.standard_normal((n, m, ho, wo)).astype(dtype) if residual else None
    wide = np.full((n, before + m + after, ho, wo), np.nan, dtype)
    place = wide[:, before : before + m]
    got = into(x, rest, out=place)
    expected = alone(x, rest)
    assert got is place
    assert expected.flags.c_contiguous
    np.testing.assert_array_equal(got.view(np.uint8), np.ascontiguousarray(expected).view(np.uint8))
    assert np.isnan(wide[:, :before]).all() and np.isnan(wide[:, before + m :]).all()


def test_other_layouts_still_get_their_own_array() -> None:
    """The im2col's batch of several small images needs each block contiguous: a channel
    slice of a batch is not written through (the Concat copies it in)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 8, 5, 5)).astype(np.float32)
    w = rng.standard_normal((6, 8, 3, 3)).astype(np.float32)
    prepared = _forced(w, None, {"pads": [1, 1, 1, 1]}, x, "im2col")
    wide = np.zeros((4, 10, 5, 5), np.float32)
    got = prepared(x, out=wide[:, 2:8])
    assert got is not wide[:, 2:8] and got.flags.c_contiguous
