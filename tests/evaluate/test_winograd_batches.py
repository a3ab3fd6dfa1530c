"""Winograd's images side by side in the prepared convolutions (``ops/conv/winograd.py``,
``fuse=True``)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft.ops.conv.kernels import conv
from onnxcraft.ops.conv.prepared import PreparedConv

RELATIVE = {np.float32: 2e-6, np.float64: 1e-14}


def _force_winograd(prepared: PreparedConv, x: np.ndarray, layout: str = "winograd") -> None:
    prepared._layout_for(x)
    key = x.shape[1:]
    prepared._layouts[key] = type(prepared._layouts[key])(prepared._layouts[key].geom, layout)


def batch_with_residual(
    layout: str, seed: int, dtype: type, shape: tuple[int, ...], m: int, pads: list[int], bias: bool
) -> tuple[np.ndarray, np.ndarray, dict, np.ndarray, np.ndarray, np.ndarray | None]:
    """A batch ``shape`` (N, C, H, W) convolved by a drawn 3x3 filter of ``m`` outputs in
    ``layout``, then the residual Add and the Relu: (got, expected: the written kernel's
    sum, then the exact Add and Relu, the attributes, x, w, b)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal((m, shape[1], 3, 3)).astype(dtype)
    b = rng.standard_normal(m).astype(dtype) if bias else None
    attrs = {"pads": pads}
    written = conv(x, w, b, **attrs)
    residual = rng.standard_normal(written.shape).astype(dtype)
    prepared = PreparedConv(w, b, attrs, add=np.add, relu=np.maximum)
    _force_winograd(prepared, x, layout)
    return prepared(x, residual), np.maximum(written + residual, 0), attrs, x, w, b


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from([np.float32, np.float64]),
    n=st.integers(1, 13),
    size=st.sampled_from([(13, 14), (14, 14), (15, 9), (7, 7)]),
    pads=st.lists(st.integers(0, 1), min_size=4, max_size=4),
    bias=st.booleans(),
)
def test_winograd_side_by_side_within_rounding(
    seed: int, dtype: type, n: int, size: tuple[int, int], pads: list[int], bias: bool
) -> None:
    """Up to 13 images of up to 64 tiles (chunks of 8 to 10 images, the last one short),
    with the residual Add and the Relu: within the rounding of the written kernel, per
    output channel as for Winograd image by image."""
    got, expected, attrs, x, w, b = batch_with_residual(
        "winograd", seed, dtype, (n, 5, *size), 4, pads, bias
    )
    magnitude = conv(np.abs(x), np.abs(w), None if b is None else np.abs(b), **attrs)
    magnitude = np.broadcast_to(magnitude.max(axis=(2, 3), keepdims=True), magnitude.shape)
    limit = RELATIVE[dtype] * (magnitude + np.finfo(dtype).tiny)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert (np.abs(got.astype(np.float64) - expected) <= limit).all()


def test_winograd_images_side_by_side_only_up_to_the_tile_count() -> None:
    geom_14 = np.zeros((12, 256, 14, 14), np.float32)
    geom_28 = np.zeros((12, 256, 28, 28), np.float32)
    prepared = PreparedConv(np.zeros((256, 256, 3, 3), np.float32), None, {"pads": [1] * 4})
    chunks = []
    for x in (geom_14, geom_28):
        _force_winograd(prepared, x)
        layout = prepared._layouts[x.shape[1:]]
        chunks.append(prepared._images_at_once(x, layout, 256))
    assert chunks == [10, 1]  # 49 tiles: 512 // 49 images a product; 196 tiles: one
