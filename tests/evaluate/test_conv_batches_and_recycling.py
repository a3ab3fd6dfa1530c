"""Winograd's images side by side and the recycled result arrays of the prepared convolutions
(``ops/conv/winograd.py``, ``ops/conv/recycle.py``, ``fuse=True``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.ops.conv import prepared as prepared_module
from onnxcraft.ops.conv.kernels import conv
from onnxcraft.ops.conv.prepared import PreparedConv
from onnxcraft.ops.conv.recycle import RecycledArrays
from onnxcraft.opset.ai.onnx import v21 as op

RELATIVE = {np.float32: 2e-6, np.float64: 1e-14}


def _force_winograd(prepared: PreparedConv, x: np.ndarray) -> None:
    prepared._layout_for(x)
    key = x.shape[1:]
    prepared._layouts[key] = type(prepared._layouts[key])(prepared._layouts[key].geom, "winograd")


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
    rng = np.random.default_rng(seed)
    c, m = 5, 4
    x = rng.standard_normal((n, c, *size)).astype(dtype)
    w = rng.standard_normal((m, c, 3, 3)).astype(dtype)
    b = rng.standard_normal(m).astype(dtype) if bias else None
    attrs = {"pads": pads}
    written = conv(x, w, b, **attrs)
    residual = rng.standard_normal(written.shape).astype(dtype)
    prepared = PreparedConv(w, b, attrs, add=np.add, relu=np.maximum)
    _force_winograd(prepared, x)
    got = prepared(x, residual)
    # the written kernel's sum, then the exact Add and Relu
    magnitude = conv(np.abs(x), np.abs(w), None if b is None else np.abs(b), **attrs)
    magnitude = np.broadcast_to(magnitude.max(axis=(2, 3), keepdims=True), magnitude.shape)
    limit = RELATIVE[dtype] * (magnitude + np.finfo(dtype).tiny)
    expected = np.maximum(written + residual, 0)
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


def test_recycled_array_only_when_nothing_refers_to_it() -> None:
    arrays = RecycledArrays()
    f32 = np.dtype(np.float32)
    first = arrays.empty((2, 3), f32)
    assert arrays.empty((2, 3), f32) is not first  # still held here
    view = first[1:]
    first_id = id(first)
    del first
    assert id(arrays.empty((2, 3), f32)) != first_id  # a view holds its base
    del view
    again = arrays.empty((2, 3), f32)
    assert id(again) == first_id  # nothing refers to it: handed out again
    assert arrays.empty((3, 2), f32).shape == (3, 2)
    assert arrays.empty((2, 3), np.dtype(np.float64)).dtype == np.float64


def test_recycled_arrays_start_afresh_past_the_shape_count() -> None:
    arrays = RecycledArrays()
    held = [arrays.empty((k,), np.dtype(np.float32)) for k in range(1, 100)]
    assert len(arrays.arrays) <= 64
    assert all(a.shape == (k,) for k, a in enumerate(held, 1))


def _residual_model() -> oc.ModelProto:
    rng = np.random.default_rng(3)
    x = oc.arg("X", np.float32, ("N", 8, 10, 10))
    w1 = rng.standard_normal((8, 8, 3, 3)).astype(np.float32) * 0.2
    w2 = rng.standard_normal((8, 8, 1, 1)).astype(np.float32) * 0.2
    b = rng.standard_normal(8).astype(np.float32)
    hidden = op.Relu(op.Conv(x, w1, b, pads=(1, 1, 1, 1)))
    y = op.Relu(op.Add(op.Conv(hidden, w2, b), x))
    return oc.build([x], {"Y": y, "Z": op.Conv(y, w2)})


@pytest.mark.parametrize("recycle", [True, False])
def test_outputs_kept_by_the_caller_are_never_reused(
    recycle: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prepared_module, "_RECYCLE", recycle)
    model = _residual_model()
    evaluator = oc.Evaluator(model)
    written = oc.Evaluator(model, fuse=False)
    rng = np.random.default_rng(4)
    feeds = [{"X": rng.standard_normal((2, 8, 10, 10)).astype(np.float32)} for _ in range(4)]
    kept = []
    for feed in feeds:
        result = evaluator.run(feed)
        kept.append((result["Y"], result["Z"].copy(), result["Z"]))
        evaluator.run(feeds[0])  # a run whose results nobody keeps, between
    for feed, (y, z_copy, z) in zip(feeds, kept, strict=True):
        expected = written.run(feed)
        np.testing.assert_allclose(y, expected["Y"], rtol=1e-5, atol=1e-5)
        assert np.array_equal(z, z_copy)  # not overwritten by the later runs
    arrays = [a for _, _, a in kept] + [y for y, _, _ in kept]
    assert not any(np.shares_memory(a, b) for i, a in enumerate(arrays) for b in arrays[i + 1 :])


def test_intermediates_kept_are_not_reused() -> None:
    model = _residual_model()
    evaluator = oc.Evaluator(model)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 8, 10, 10)).astype(np.float32)
    first = evaluator.run({"X": x}, intermediates=True)
    saved = {k: np.array(v, copy=True) for k, v in first.items() if isinstance(v, np.ndarray)}
    evaluator.run({"X": -x})
    evaluator.run({"X": 2 * x})
    for name, value in saved.items():
        assert np.array_equal(first[name], value), name


def test_results_nobody_keeps_are_reused_run_after_run() -> None:
    evaluator = oc.Evaluator(_residual_model())
    convs = [s.fn for s in evaluator._plan.steps if isinstance(s.fn, PreparedConv)]
    assert convs
    results = convs[0].work.results
    x = np.ones((2, 8, 10, 10), np.float32)
    evaluator.run({"X": x})
    count = sum(len(a) for a in results.arrays.values())
    for _ in range(3):
        evaluator.run({"X": x})
    assert sum(len(a) for a in results.arrays.values()) == count
