"""F(4x4, 3x3)'s side-by-side images in cache-sized chunks (``_WINOGRAD4_CHUNK_VALUES`` in
``ops/conv/prepared.py``, ``fuse=True``), and its transforms in blocks of channels
(``_BLOCK_VALUES`` in ``ops/conv/winograd4.py``)."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft.ops.conv import prepared as prepared_module
from onnxcraft.ops.conv import winograd4 as winograd4_module
from onnxcraft.ops.conv.kernels import conv_geometry
from onnxcraft.ops.conv.prepared import PreparedConv, _Layout
from onnxcraft.ops.conv.scratch import WorkingArrays
from onnxcraft.ops.conv.winograd4 import winograd4_image, winograd4_weights
from tests.evaluate.test_winograd4 import _limit, _within_bound


def _chunk(c: int, m: int, size: int) -> int:
    x = np.zeros((8, c, size, size), np.float32)
    conv = PreparedConv(np.zeros((m, c, 3, 3), np.float32), None, {"pads": [1] * 4})
    layout = conv._layouts.get(x.shape[1:]) or conv._layout_for(x)
    assert layout is not None and layout.name == "winograd4"
    return layout.at_once


def test_chunks_follow_the_transformed_values() -> None:
    """36 x max(C, M) x tiles values an image, 2^20 in a chunk (and 512 columns at most, which
    the values bound first from F(4x4, 3x3)'s 64 channels on)."""
    assert _chunk(128, 192, 28) == (1 << 20) // (36 * 192 * 49) == 3  # BN-Inception 3c
    assert _chunk(128, 128, 28) == 4  # ResNet-50's stage 2
    assert _chunk(160, 320, 14) == 5  # BN-Inception 4a
    assert _chunk(64, 64, 28) == 9  # (512 // 49 = 10 images before)
    assert _chunk(64, 64, 14) == 28  # (512 // 16 = 32 before)
    assert _chunk(64, 64, 56) == 1  # 196 tiles: one image at a time, as before


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch", [1, 5, 7])
def test_short_chunks_within_the_bound_and_as_the_whole_batch(
    monkeypatch: pytest.MonkeyPatch, dtype: type, batch: int
) -> None:
    """A batch in chunks of 3 images (the last one short), residual Add and Relu after: within
    F(4x4, 3x3)'s bound of the written kernel, and the same values as the batch in one chunk
    up to that bound too."""
    rng = np.random.default_rng(batch)
    c, m, size = 6, 10, 12  # 9 tiles an image: 36 * 10 * 9 values
    x = rng.standard_normal((batch, c, size, size)).astype(dtype)
    w = rng.standard_normal((m, c, 3, 3)).astype(dtype)
    b = rng.standard_normal(m).astype(dtype)
    attrs = {"pads": [1, 1, 1, 1]}
    residual = rng.standard_normal((batch, m, size, size)).astype(dtype)
    monkeypatch.setattr(prepared_module, "_WINOGRAD4_CHUNK_VALUES", 3 * 36 * 10 * 9)
    chunked = PreparedConv(w, b, attrs, add=np.add, relu=np.maximum)
    whole = PreparedConv(w, b, attrs, add=np.add, relu=np.maximum)
    key = x.shape[1:]
    image = PreparedConv._image("winograd4")
    for conv in (chunked, whole):  # F(4x4, 3x3) forced (chosen from 64 channels on)
        chosen = conv._layout_for(x)
        assert chosen is not None
        forced = _Layout(chosen.geom, "winograd4")
        at_once = conv._images_at_once(x, forced, m) if conv is chunked else 64
        conv._layouts[key] = _Layout(chosen.geom, "winograd4", image=image, at_once=at_once)
    assert chunked._layouts[key].at_once == 3
    got = chunked(x, residual)
    alone = whole(x, residual)
    written = prepared_module.conv(x, w, b, **attrs)
    limit = _limit(x, w, b, attrs)
    _within_bound(got, np.maximum(written + residual, 0), limit)
    _within_bound(got, alone, 2 * limit)


@pytest.mark.parametrize(
    ("batch", "cap", "chunks"), [(8, 7, [4, 4]), (8, 3, [3, 3, 2]), (5, 8, [5])]
)
def test_the_batch_splits_into_chunks_of_even_size(batch: int, cap: int, chunks: list[int]) -> None:
    """A batch over the cap goes in as few chunks as the cap allows, of sizes differing by one
    at most: 8 images by 7 make 4 + 4, not 7 + 1 (one 14 x 14 image alone is the narrow
    product F(4x4, 3x3) is not chosen for)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 4, 8, 8)).astype(np.float32)
    w = rng.standard_normal((4, 4, 3, 3)).astype(np.float32)
    conv = PreparedConv(w, None, {"pads": [1, 1, 1, 1]}, relu=np.maximum)
    chosen = conv._layout_for(x)
    assert chosen is not None
    seen: list[int] = []
    image = PreparedConv._image("winograd4")

    def recorded(self: PreparedConv, part: np.ndarray, *rest: object) -> None:
        seen.append(part.shape[0])
        image(self, part, *rest)

    conv._layouts[x.shape[1:]] = _Layout(chosen.geom, "winograd4", image=recorded, at_once=cap)
    got = conv(x)
    assert seen == chunks
    written = np.maximum(prepared_module.conv(x, w, None, pads=[1, 1, 1, 1]), 0)
    _within_bound(got, written, _limit(x, w, None, {"pads": [1, 1, 1, 1]}))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from([np.float32, np.float64]),
    batch=st.integers(1, 3),
    channels=st.integers(1, 11),
    out_channels=st.integers(1, 7),
    height=st.integers(1, 13),
    width=st.integers(1, 13),
    block=st.integers(1, 4),
    bias=st.booleans(),
)
def test_the_transforms_by_blocks_of_channels_within_the_bound(
    seed: int,
    dtype: type,
    batch: int,
    channels: int,
    out_channels: int,
    height: int,
    width: int,
    block: int,
    bias: bool,
) -> None:
    """The input and output transforms a block of ``block`` channels at a time (the last
    block short): within F(4x4, 3x3)'s bound of the written kernel, and of all channels at
    once. Each channel's tiles and products go through the same sums with B^T and A^T,
    fewer at a time; OpenBLAS may round a product of one column (a matrix-vector product,
    here a single tile in a block of one channel) differently from a wider one."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, channels, height, width)).astype(dtype)
    w = rng.standard_normal((out_channels, channels, 3, 3)).astype(dtype)
    b = rng.standard_normal(out_channels).astype(dtype) if bias else None
    geom = conv_geometry(
        "Conv",
        x,
        w,
        kernel_shape=None,
        strides=None,
        dilations=None,
        pads=[1] * 4,
        auto_pad="NOTSET",
    )
    u = winograd4_weights(w)
    tiles = batch * -(-height // 4) * -(-width // 4)
    results = []
    for values in (36 * tiles * block, 1 << 40):
        with mock.patch.object(winograd4_module, "_BLOCK_VALUES", values):
            out = np.empty((batch, out_channels, height, width), dtype)
            winograd4_image(
                x, geom, u, None if b is None else b.reshape(-1, 1, 1), out, WorkingArrays()
            )
            results.append(out)
    attrs = {"pads": [1, 1, 1, 1]}
    limit = _limit(x, w, b, attrs)
    written = prepared_module.conv(x, w, b, **attrs)
    _within_bound(results[0], written, limit)
    _within_bound(results[1], written, limit)
    _within_bound(results[0], results[1], 2 * limit)
