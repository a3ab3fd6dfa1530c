"""Inference rules of the vision, normalization and detection operators.

1. Table-driven over the ONNX node tests: every output of these operators is inferred fully
   static and equal to the expected value's dtype and shape (data-dependent outputs: their
   static part), with the declared output types removed.
2. Property tests: hypothesis draws attributes and shapes for Conv, ConvTranspose, the pools,
   Resize and GridSample; the type inferred while building must be the type of the value the
   evaluator computes; clashing shapes must raise InferenceError at build time.
3. Hand-computed cases: symbolic dims, unknown inputs, and every other operator.
4. Every (operator, since_version) of the family has a rule, and a small node of each version
   is inferred exactly as the evaluator's value (deprecated versions included).
5. Clashing inputs: a clear InferenceError naming operator, argument, expected and received.
6. Tricky geometry (ceil mode, SAME padding, output_shape, aspect-ratio policies) against
   onnxruntime, an independent implementation.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft import specs
from onnxcraft.dtypes import ElementType
from onnxcraft.infer.rules import default_rules
from onnxcraft.opset.ai.onnx import (
    v1,
    v7,
    v9,
    v10,
    v11,
    v12,
    v13,
    v15,
    v16,
    v17,
    v18,
    v19,
    v20,
    v21,
    v22,
    v23,
    v27,
)
from onnxcraft.proto.serde import model_from_proto
from onnxcraft.types import Tensor
from tests.evaluate._vision_oracle import run_node
from tests.infer._vision_cases import (
    DATA_DEPENDENT,
    VISION_OPS,
    Window,
    assert_type_matches_value,
    checked_outputs,
    node_model,
    resize_setups,
    static_type_of,
    version_cases,
    vision_case_names,
    windows,
)

# -- 1. the node tests --------------------------------------------------------------------------


@pytest.mark.parametrize("name", vision_case_names())
def test_node_case_outputs_are_inferred_exactly(name: str) -> None:
    outputs = checked_outputs(name)
    assert outputs, f"{name}: no output of a vision operator found"
    for out in outputs:
        where = f"{name}: {out.op_type} output {out.index} {out.name!r}"
        if (out.op_type, out.index) in DATA_DEPENDENT:
            _assert_static_part(out.op_type, out.inferred, out.expected, where)
        else:
            assert_type_matches_value(out.inferred, out.expected, where)


def _assert_static_part(op_type: str, inferred: object, value: object, where: str) -> None:
    array = np.asarray(value)
    assert isinstance(inferred, Tensor), f"{where}: inferred {inferred}"
    if op_type == "NonMaxSuppression":
        assert inferred == Tensor(ElementType.INT64, (None, 3)), f"{where}: inferred {inferred}"
        assert array.shape[1:] == (3,) and array.dtype == np.int64
    else:  # ImageDecoder: (height, width, channels) uint8, channels from pixel_format
        expected = Tensor(ElementType.UINT8, (None, None, array.shape[2]))
        assert inferred == expected, f"{where}: inferred {inferred}, value {array.shape}"


# -- 2. properties: inferred while building == what the evaluator computes ----------------------


PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RNG = np.random.default_rng(0)


def _data(shape: tuple[int, ...], dtype: type = np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def _check_against_evaluator(outputs: dict[str, oc.Var], feeds: dict[oc.Var, np.ndarray]) -> None:
    """Every output Var's inferred type is the static type of the value the evaluator gives."""
    values = oc.evaluate(outputs, feeds)
    for name, var in outputs.items():
        assert var.type == static_type_of(values[name]), (
            f"{name}: inferred {var.type}, evaluated {static_type_of(values[name])}"
        )


def _with_symbolic_batch(var: oc.Var, batch: str = "N") -> Tensor:
    """The type ``var`` would have with a symbolic batch: only dim 0 changes."""
    assert isinstance(var.type, Tensor) and var.type.shape is not None
    return Tensor(var.type.elem_type, (batch, *var.type.shape[1:]))


@st.composite
def _conv_setups(draw: st.DrawFn) -> tuple[Window, int, int, int, int]:
    """A window plus batch size, group, and input / output channels per group."""
    window = draw(windows())
    batch, group = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    per_group_in, per_group_out = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    return window, batch, group, per_group_in, per_group_out


@PROPERTY
@given(_conv_setups(), st.booleans())
def test_conv_type_matches_evaluator(setup: tuple[Window, int, int, int, int], bias: bool) -> None:
    window, batch, group, per_group_in, per_group_out = setup
    channels, features = group * per_group_in, group * per_group_out
    w = _data((features, per_group_in, *window.kernel))
    b = _data((features,)) if bias else None
    x = oc.arg("X", np.float32, (batch, channels, *window.sizes))
    y = v22.Conv(x, w, b, group=group, **window.attributes)
    _check_against_evaluator({"Y": y}, {x: _data((batch, channels, *window.sizes))})
    symbolic = oc.arg("X", np.float32, ("N", channels, *window.sizes))
    assert v22.Conv(symbolic, w, b, group=group, **window.attributes).type == (
        _with_symbolic_batch(y)
    )


@st.composite
def _conv_transpose_setups(draw: st.DrawFn) -> tuple[tuple[int, ...], np.ndarray, dict[str, Any]]:
    nd = draw(st.integers(1, 3))
    group = draw(st.integers(1, 2))
    channels = group * draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(nd)]
    strides = [draw(st.integers(1, 3)) for _ in range(nd)]
    dilations = [draw(st.integers(1, 2)) for _ in range(nd)]
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    attrs: dict[str, Any] = {"group": group, "strides": strides, "dilations": dilations}
    mode = draw(st.sampled_from(("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", "output_shape")))
    if mode == "output_shape":
        attrs["output_shape"] = [draw(st.integers(1, 12)) for _ in range(nd)]
    elif mode != "NOTSET":
        attrs["auto_pad"] = mode
    else:
        # At most span - 1 of padding in all keeps every output size positive.
        begin = [draw(st.integers(0, (s - 1) // 2)) for s in spans]
        end = [draw(st.integers(0, s - 1 - b)) for s, b in zip(spans, begin)]
        attrs["pads"] = begin + end
        limits = [max(s, d) - 1 for s, d in zip(strides, dilations)]
        attrs["output_padding"] = [draw(st.integers(0, limit)) for limit in limits]
    sizes = tuple(draw(st.integers(1, 4)) for _ in range(nd))
    w = _data((channels, draw(st.integers(1, 2)), *kernel))
    return (draw(st.integers(1, 2)), channels, *sizes), w, attrs


@PROPERTY
@given(_conv_transpose_setups())
def test_conv_transpose_type_matches_evaluator(
    setup: tuple[tuple[int, ...], np.ndarray, dict[str, Any]],
) -> None:
    shape, w, attrs = setup
    x = oc.arg("X", np.float32, shape)
    y = v22.ConvTranspose(x, w, **attrs)
    _check_against_evaluator({"Y": y}, {x: _data(shape)})
    symbolic = oc.arg("X", np.float32, ("N", *shape[1:]))
    assert v22.ConvTranspose(symbolic, w, **attrs).type == _with_symbolic_batch(y)


# VALID with ceil_mode is left out here: the evaluator keeps a window that starts past the
# input there (see test_valid_ceil_mode_drops_window_starting_past_the_input below).
_POOL_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER")


@PROPERTY
@given(
    windows(ceil_mode=True, auto_pads=_POOL_PADS) | windows(auto_pads=("VALID",)),
    st.sampled_from(("MaxPool", "AveragePool", "LpPool")),
    st.sampled_from((np.float32, np.float64)),
)
def test_pool_type_matches_evaluator(window: Window, op_type: str, dtype: type) -> None:
    shape = (2, 3, *window.sizes)
    x = oc.arg("X", dtype, shape)
    result = getattr(v22, op_type)(x, **window.attributes)
    outputs = {"Y": result[0], "Indices": result[1]} if op_type == "MaxPool" else {"Y": result}
    _check_against_evaluator(outputs, {x: _data(shape, dtype)})


@PROPERTY
@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=3),
    st.sampled_from(("GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")),
)
def test_global_pool_type_matches_evaluator(spatial: list[int], op_type: str) -> None:
    shape = (2, 3, *spatial)
    x = oc.arg("X", np.float32, shape)
    _check_against_evaluator({"Y": getattr(v22, op_type)(x)}, {x: _data(shape)})


@PROPERTY
@given(resize_setups(with_axes=True))
def test_resize_19_type_matches_evaluator(setup: Any) -> None:
    x = oc.arg("X", np.float32, setup.shape)
    y = v19.Resize(x, None, setup.scales, setup.sizes, **setup.attributes)
    _check_against_evaluator({"Y": y}, {x: _data(setup.shape)})


@PROPERTY
@given(resize_setups(with_axes=False), st.sampled_from((10, 11, 13)))
def test_older_resize_type_matches_evaluator(setup: Any, version: int) -> None:
    x = oc.arg("X", np.float32, setup.shape)
    empty = np.zeros(0, np.float32)
    if version == 10:
        assume(setup.scales is not None)  # Resize-10 has no sizes input
        y = v10.Resize(x, setup.scales, **setup.attributes)
    elif version == 11:  # roi and scales are required inputs: empty when unused
        scales = empty if setup.scales is None else setup.scales
        y = v11.Resize(x, empty, scales, setup.sizes, **setup.attributes)
    else:
        y = v13.Resize(x, None, setup.scales, setup.sizes, **setup.attributes)
    _check_against_evaluator({"Y": y}, {x: _data(setup.shape)})


@st.composite
def _grid_setups(draw: st.DrawFn, *, nd: int | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    rank = nd if nd is not None else draw(st.integers(1, 3))
    batch, channels = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    image = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    points = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    return (batch, channels, *image), (batch, *points, rank)


@PROPERTY
@given(_grid_setups(nd=None), st.sampled_from(("nearest", "linear")), st.booleans())
def test_grid_sample_type_matches_evaluator(
    shapes: tuple[tuple[int, ...], tuple[int, ...]], mode: str, align: bool
) -> None:
    x_shape, grid_shape = shapes
    x = oc.arg("X", np.float32, x_shape)
    grid = (RNG.uniform(-1.2, 1.2, grid_shape)).astype(np.float32)
    _check_against_evaluator(
        {"Y": v22.GridSample(x, grid, mode=mode, align_corners=int(align))}, {x: _data(x_shape)}
    )


@PROPERTY
@given(_grid_setups(nd=2), st.sampled_from(("nearest", "bilinear", "bicubic")))
def test_grid_sample_16_type_matches_evaluator(
    shapes: tuple[tuple[int, ...], tuple[int, ...]], mode: str
) -> None:
    x_shape, grid_shape = shapes
    x = oc.arg("X", np.float32, x_shape)
    grid = (RNG.uniform(-1, 1, grid_shape)).astype(np.float32)
    _check_against_evaluator({"Y": v16.GridSample(x, grid, mode=mode)}, {x: _data(x_shape)})


# -- 2b. properties: clashing shapes fail while building ----------------------------------------


@PROPERTY
@given(windows(auto_pads=("NOTSET",)), st.integers(1, 3), st.integers(1, 2), st.integers(1, 3))
def test_conv_channel_clash_raises(window: Window, group: int, per_group: int, extra: int) -> None:
    channels = group * per_group
    w = _data((group, per_group + extra, *window.kernel))  # W says more channels than X has
    x = oc.arg("X", np.float32, (1, channels, *window.sizes))
    with pytest.raises(oc.InferenceError, match=r"^Conv: weight W has \d+ channels per group"):
        v22.Conv(x, w, group=group, **window.attributes)


@PROPERTY
@given(windows(auto_pads=("NOTSET",)), st.integers(1, 3))
def test_conv_bias_length_clash_raises(window: Window, extra: int) -> None:
    w = _data((2, 1, *window.kernel))
    x = oc.arg("X", np.float32, (1, 1, *window.sizes))
    with pytest.raises(oc.InferenceError, match=r"^Conv: bias B must have one entry per output"):
        v22.Conv(x, w, _data((2 + extra,)), **window.attributes)


@st.composite
def _too_small_inputs(draw: st.DrawFn) -> Window:
    """A NOTSET window whose extent exceeds the padded input along one axis."""
    window = draw(windows(auto_pads=("NOTSET",)))
    nd = len(window.kernel)
    axis = draw(st.integers(0, nd - 1))
    pads = window.attributes["pads"]
    dilation = window.attributes["dilations"][axis]
    span = (window.kernel[axis] - 1) * dilation + 1
    room = span - pads[axis] - pads[nd + axis] - 1  # the largest size that is still too small
    assume(room >= 1)
    sizes = list(window.sizes)
    sizes[axis] = draw(st.integers(1, room))
    return Window(tuple(sizes), window.kernel, window.attributes)


@PROPERTY
@given(_too_small_inputs(), st.sampled_from(("Conv", "MaxPool", "AveragePool", "LpPool")))
def test_window_larger_than_padded_input_raises(window: Window, op_type: str) -> None:
    x = oc.arg("X", np.float32, (1, 2, *window.sizes))
    with pytest.raises(oc.InferenceError, match=rf"^{op_type}: the window .* is larger than"):
        if op_type == "Conv":
            v22.Conv(x, _data((1, 2, *window.kernel)), **window.attributes)
        else:
            getattr(v22, op_type)(x, **window.attributes)


@PROPERTY
@given(windows(), st.sampled_from(("pads", "strides", "dilations", "kernel_shape")), st.data())
def test_attribute_length_clash_raises(window: Window, name: str, data: st.DataObject) -> None:
    nd = len(window.kernel)
    wanted = 2 * nd if name == "pads" else nd
    length = data.draw(st.integers(1, 7).filter(lambda n: n != wanted))
    attributes = {**window.attributes, name: [1] * length}
    if name == "pads":
        attributes.pop("auto_pad", None)
    x = oc.arg("X", np.float32, (1, 2, *window.sizes))
    with pytest.raises(oc.InferenceError, match=rf"^MaxPool: {name}.* must have"):
        v22.MaxPool(x, **attributes)


@PROPERTY
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3))
def test_conv_transpose_weight_clash_raises(nd: int, channels: int, extra: int) -> None:
    x = oc.arg("X", np.float32, (1, channels, *(3,) * nd))
    w = _data((channels + extra, 2, *(2,) * nd))  # W's dim 0 must be X's channels
    with pytest.raises(oc.InferenceError, match=r"^ConvTranspose: weight W's dim 0 must equal"):
        v22.ConvTranspose(x, w)


@PROPERTY
@given(resize_setups(with_axes=False), st.integers(1, 3))
def test_resize_factor_count_clash_raises(setup: Any, extra: int) -> None:
    x = oc.arg("X", np.float32, setup.shape)
    rank = len(setup.shape)
    if setup.scales is not None:
        with pytest.raises(oc.InferenceError, match=rf"^Resize: scales must have {rank} entries"):
            v19.Resize(x, None, np.ones(rank + extra, np.float32))
    else:
        with pytest.raises(oc.InferenceError, match=rf"^Resize: sizes must have {rank} entries"):
            v19.Resize(x, None, None, np.ones(rank + extra, np.int64))


@PROPERTY
@given(_grid_setups(nd=None), st.sampled_from(("batch", "coordinates")), st.integers(1, 2))
def test_grid_sample_clash_raises(
    shapes: tuple[tuple[int, ...], tuple[int, ...]], clash: str, extra: int
) -> None:
    x_shape, grid_shape = shapes
    if clash == "batch":
        grid_shape = (grid_shape[0] + extra, *grid_shape[1:])
        pattern = r"^GridSample: grid's batch \(dim 0\) must equal X's"
    else:
        grid_shape = (*grid_shape[:-1], grid_shape[-1] + extra)
        pattern = r"^GridSample: grid's last dim must be the \d spatial axes"
    x = oc.arg("X", np.float32, x_shape)
    with pytest.raises(oc.InferenceError, match=pattern):
        v22.GridSample(x, _data(grid_shape))


# -- 3. hand-computed cases ---------------------------------------------------------------------


F32, F64, I64 = ElementType.FLOAT, ElementType.DOUBLE, ElementType.INT64


def _arg(shape: tuple[Any, ...] | None, dtype: type = np.float32, name: str = "X") -> oc.Var:
    return oc.arg(name, dtype, shape)


def test_symbolic_dims_propagate_where_the_size_is_kept() -> None:
    x = _arg(("N", 3, "H", "W"))
    w = _data((8, 3, 3, 3))
    # 3x3 kernel, stride 1, one pixel of padding on each side: the size is kept.
    assert v22.Conv(x, w, pads=[1, 1, 1, 1]).type == Tensor(F32, ("N", 8, "H", "W"))
    assert v22.Conv(x, w, auto_pad="SAME_LOWER").type == Tensor(F32, ("N", 8, "H", "W"))
    # Stride 2 or no padding: the size changes by an amount the symbol does not tell.
    assert v22.Conv(x, w, auto_pad="SAME_UPPER", strides=[2, 1]).type == Tensor(
        F32, ("N", 8, None, "W")
    )
    assert v22.Conv(x, w).type == Tensor(F32, ("N", 8, None, None))
    pooled = v22.MaxPool(_arg(("N", "C", 7, None)), kernel_shape=[3, 3], strides=[2, 2])
    assert pooled.Y.type == Tensor(F32, ("N", "C", 3, None))  # floor((7 - 3) / 2) + 1
    assert pooled.Indices.type == Tensor(I64, ("N", "C", 3, None))
    # ConvTranspose, stride 1, pads = kernel - 1: the size is kept.
    wt = _data((3, 2, 3, 3))
    assert v22.ConvTranspose(x, wt, pads=[1, 1, 1, 1]).type == Tensor(F32, ("N", 2, "H", "W"))


def test_unknown_input_shapes_give_unknown_dims() -> None:
    w = _data((8, 3, 3, 3))
    assert v22.Conv(_arg(None), w).type == Tensor(F32, (None, 8, None, None))
    assert v22.MaxPool(_arg(None), kernel_shape=[2]).Y.type == Tensor(F32, (None,) * 3)
    assert v22.GlobalAveragePool(_arg(None)).type == Tensor(F32, None)
    scales = oc.arg("S", np.float32, (4,))  # known count, unknown values
    assert v19.Resize(_arg((1, 3, 5, 5)), None, scales).type == Tensor(F32, (None,) * 4)
    resized = v19.Resize(_arg((1, 3, 5, 5)), None, scales[:2], axes=[2, 3])
    assert resized.type == Tensor(F32, (1, 3, None, None))


def test_conv_family_hand_computed() -> None:
    x = _arg((2, 4, 9, 10))
    # Height: (9 + 1 + 2 - (2 * (3 - 1) + 1)) // 2 + 1 = 4; width: (10 - 3) // 1 + 1 = 8.
    y = v22.Conv(x, _data((6, 2, 3, 3)), group=2, strides=[2, 1], dilations=[2, 1],
                 pads=[1, 0, 2, 0])  # fmt: skip
    assert y.type == Tensor(F32, (2, 6, 4, 8))
    xq = _arg((1, 2, 5, 5), np.uint8)
    wq = np.ones((3, 2, 2, 2), np.int8)
    assert v10.ConvInteger(xq, wq).type == Tensor(ElementType.INT32, (1, 3, 4, 4))
    scale = np.float32(0.5)
    q = v10.QLinearConv(xq, scale, np.uint8(0), wq, scale, np.int8(0), scale, np.int8(1))
    assert q.type == Tensor(ElementType.INT8, (1, 3, 4, 4))  # y_zero_point's type
    # ConvTranspose: 2 * (3 - 1) + 1 + (3 - 1) + 1 - 1 - 0 = 7; output_shape overrides.
    xt = _arg((1, 2, 3, 3))
    wt = _data((2, 4, 3, 3))
    assert v22.ConvTranspose(xt, wt, strides=[2, 2], output_padding=[1, 0],
                             pads=[1, 0, 0, 1]).type == Tensor(F32, (1, 4, 7, 6))  # fmt: skip
    assert v22.ConvTranspose(xt, wt, strides=[2, 2], auto_pad="SAME_UPPER").type == Tensor(
        F32, (1, 4, 6, 6)
    )
    full = v22.ConvTranspose(xt, wt, strides=[3, 2], output_shape=[1, 4, 10, 8])
    assert full.type == Tensor(F32, (1, 4, 10, 8))
    # Col2Im: 5x5 image, 2x2 blocks, stride 1: 4 * 4 = 16 blocks; 8 rows = 2 channels * 4 taps.
    col = v18.Col2Im(_arg((1, 8, 16)), np.array([5, 5]), np.array([2, 2]))
    assert col.type == Tensor(F32, (1, 2, 5, 5))


def test_conv_variants_hand_computed() -> None:
    offset = _arg((1, 18, 3, 3), name="offset")  # offset_group 1 * 9 taps * 2 axes
    d = v22.DeformConv(_arg((1, 2, 5, 5)), _data((4, 2, 3, 3)), offset)
    assert d.type == Tensor(F32, (1, 4, 3, 3))
    c = v27.CausalConvWithState(_arg((2, 4, 10)), _data((4, 1, 3)))
    assert c.output.type == Tensor(F32, (2, 4, 10))
    assert c.present_state.type == Tensor(F32, (2, 4, 2))  # the last k - 1 = 2 steps


def test_pool_family_hand_computed() -> None:
    x = _arg((1, 3, 5, 5))
    # Ceil mode: ceil((5 + 1 - 2) / 2) + 1 = 3 windows; the third starts at 4 < 5 + 0.
    assert v22.AveragePool(x, kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 1, 1],
                           ceil_mode=1).type == Tensor(F32, (1, 3, 3, 3))  # fmt: skip
    # Ceil mode, 1 x 1 windows every 3: ceil(5 / 3) + 1 = 3, but the third would start at 6,
    # past the input and its padding: 2 windows.
    assert v22.MaxPool(x, kernel_shape=[1, 1], strides=[3, 3], pads=[0, 0, 1, 1],
                       ceil_mode=1).Y.type == Tensor(F32, (1, 3, 2, 2))  # fmt: skip
    assert v22.LpPool(x, kernel_shape=[3, 3], dilations=[2, 1]).type == Tensor(F32, (1, 3, 1, 3))
    assert v1.MaxPool(x, kernel_shape=[2, 2]).type == Tensor(F32, (1, 3, 4, 4))
    assert v22.GlobalLpPool(_arg((2, 3, 4, 5, 6))).type == Tensor(F32, (2, 3, 1, 1, 1))
    unpool_in, indices = _arg((1, 1, 2, 2)), _arg((1, 1, 2, 2), np.int64, "I")
    assert v22.MaxUnpool(unpool_in, indices, kernel_shape=[2, 2], strides=[2, 2]).type == (
        Tensor(F32, (1, 1, 4, 4))
    )
    shaped = v22.MaxUnpool(
        unpool_in, indices, np.array([1, 1, 5, 5]), kernel_shape=[2, 2], strides=[2, 2]
    )
    assert shaped.type == Tensor(F32, (1, 1, 5, 5))
    requested = oc.arg("S", np.int64, (4,))
    assert v22.MaxUnpool(unpool_in, indices, requested, kernel_shape=[2, 2]).type == Tensor(
        F32, (1, 1, None, None)
    )


def test_roi_and_detection_hand_computed() -> None:
    rois, indices = _arg((5, 4), name="rois"), _arg((5,), np.int64, "batch_indices")
    aligned = v22.RoiAlign(_arg((2, 4, 10, 10)), rois, indices, output_height=3, output_width=2)
    assert aligned.type == Tensor(F32, (5, 4, 3, 2))
    pooled = v22.MaxRoiPool(_arg((1, 3, 8, 8)), _arg((7, 5), name="rois"), pooled_shape=[2, 2])
    assert pooled.type == Tensor(F32, (7, 3, 2, 2))
    boxes, scores = _arg((1, 6, 4), name="boxes"), _arg((1, 2, 6), name="scores")
    assert v22.NonMaxSuppression(boxes, scores).type == Tensor(I64, (None, 3))
    stream = _arg((100,), np.uint8, "stream")
    assert v20.ImageDecoder(stream).type == Tensor(ElementType.UINT8, (None, None, 3))
    gray = v20.ImageDecoder(stream, pixel_format="Grayscale")
    assert gray.type == Tensor(ElementType.UINT8, (None, None, 1))


def test_grid_and_crop_hand_computed() -> None:
    assert v20.AffineGrid(_arg((2, 2, 3)), np.array([2, 3, 4, 5])).type == Tensor(F32, (2, 4, 5, 2))
    assert v20.AffineGrid(_arg((1, 3, 4)), np.array([1, 1, 2, 3, 4])).type == Tensor(
        F32, (1, 2, 3, 4, 3)
    )
    crop = v18.CenterCropPad(_arg((10, 7, 3)), np.array([5, 9]), axes=[0, -2])
    assert crop.type == Tensor(F32, (5, 9, 3))
    grid = v22.GridSample(_arg(("N", 3, 8, 8, 8)), _arg(("N", 2, 4, 6, 3), name="grid"))
    assert grid.type == Tensor(F32, ("N", 3, 2, 4, 6))


def test_resize_and_upsample_hand_computed() -> None:
    x = _arg((1, 3, 5, 7))
    # floor(5 * 0.6) = 3 (0.6 as float32 is 0.60000002), floor(7 * 1.5) = 10.
    scales = np.array([1, 1, 0.6, 1.5], np.float32)
    assert v19.Resize(x, None, scales).type == Tensor(F32, (1, 3, 3, 10))
    # not_larger: common scale min(4 / 5, 4 / 7) = 4 / 7: round(5 * 4 / 7) = 3, 7 * 4 / 7 = 4.
    sizes = np.array([4, 4])
    fit = v19.Resize(x, None, None, sizes, axes=[2, 3], keep_aspect_ratio_policy="not_larger")
    assert fit.type == Tensor(F32, (1, 3, 3, 4))
    fill = v19.Resize(x, None, None, sizes, axes=[2, 3], keep_aspect_ratio_policy="not_smaller")
    assert fill.type == Tensor(F32, (1, 3, 4, 6))  # 4 / 5: 4 and round(5.6) = 6
    # Sizes taken from another tensor's symbolic shape carry its symbols.
    like = _arg(("N", 3, "H", "W"), name="like")
    assert v19.Resize(x, None, None, v19.Shape(like, start=2), axes=[2, 3]).type == Tensor(
        F32, (1, 3, "H", "W")
    )
    assert v10.Resize(x, scales).type == Tensor(F32, (1, 3, 3, 10))
    assert v9.Upsample(x, np.array([1, 1, 2, 3], np.float32)).type == Tensor(F32, (1, 3, 10, 21))
    assert v7.Upsample(x, scales=[1.0, 1.0, 2.0, 2.0]).type == Tensor(F32, (1, 3, 10, 14))
    assert v1.Upsample(x, height_scale=2.0, width_scale=3.0).type == Tensor(F32, (1, 3, 10, 21))


def test_normalizations_hand_computed() -> None:
    x = _arg((2, 3, 4, 5))
    c = _data((3,))
    bn = v15.BatchNormalization(x, c, c, c.astype(np.float64), c.astype(np.float64),
                                training_mode=1)  # fmt: skip
    assert bn.Y.type == Tensor(F32, (2, 3, 4, 5))
    assert bn.running_mean.type == Tensor(F64, (3,))  # the type of input_mean
    assert bn.running_var.type == Tensor(F64, (3,))
    legacy = v9.BatchNormalization(x, c, c, c, c)
    assert [t.type for t in legacy] == [Tensor(F32, (2, 3, 4, 5))] + [Tensor(F32, (3,))] * 4
    p = _data((3, 4, 5))  # spatial=0: one parameter per activation
    per_activation = v7.BatchNormalization(x, p, p, p, p, spatial=0)
    assert per_activation.mean.type == Tensor(F32, (3, 4, 5))
    assert v22.InstanceNormalization(x, c, c).type == Tensor(F32, (2, 3, 4, 5))
    ln = v17.LayerNormalization(x, _data((4, 5)), axis=2)
    assert ln.Y.type == Tensor(F32, (2, 3, 4, 5))
    assert ln.Mean.type == ln.InvStdDev.type == Tensor(F32, (2, 3, 1, 1))
    x64 = _arg((2, 3), np.float64)
    # The statistics take stash_type's type (float by default), whatever X's type.
    assert v17.LayerNormalization(x64, np.ones(3)).Mean.type == Tensor(F32, (2, 1))
    bf16 = v17.LayerNormalization(x, _data((5,)), stash_type=int(ElementType.BFLOAT16))
    assert bf16.Mean.type == Tensor(ElementType.BFLOAT16, (2, 3, 4, 1))
    assert v21.GroupNormalization(x, c, c, num_groups=3).type == x.type
    rms = v23.RMSNormalization(_arg((2, 6), np.float16), _data((6,)))
    assert rms.type == Tensor(F32, (2, 6))  # Y has scale's type (type parameter V)
    for y in (
        v22.LRN(x, size=3),
        v22.LpNormalization(x, axis=1, p=1),
        v18.MeanVarianceNormalization(x, axes=[0, 2, 3]),
    ):
        assert y.type == x.type


def test_dropout_versions_hand_computed() -> None:
    x = _arg((3, 4))
    for dropout in (v22.Dropout(x), v12.Dropout(x, np.float32(0.2), np.bool_(True)),
                    v10.Dropout(x)):  # fmt: skip
        assert dropout.output.type == Tensor(F32, (3, 4))
        assert dropout.mask.type == Tensor(ElementType.BOOL, (3, 4))
    assert v7.Dropout(x).mask.type == Tensor(F32, (3, 4))  # before 10: the data's type
    assert v1.Dropout(x, is_test=1).mask.type == Tensor(F32, (3, 4))


def test_losses_hand_computed() -> None:
    scores = _arg((4, 5, 6, 7))
    target = _arg((4, 6, 7), np.int64, "target")
    assert v22.NegativeLogLikelihoodLoss(scores, target).type == Tensor(F32, ())
    nll = v22.NegativeLogLikelihoodLoss(scores, target, reduction="none")
    assert nll.type == Tensor(F32, (4, 6, 7))
    # A target of unknown shape: the scores still tell (N, d1, d2).
    unknown = v22.NegativeLogLikelihoodLoss(scores, _arg(None, np.int64, "t"), reduction="none")
    assert unknown.type == Tensor(F32, (4, 6, 7))
    sce = v22.SoftmaxCrossEntropyLoss(scores, target, _data((5,)), reduction="sum")
    assert sce.output.type == Tensor(F32, ())
    assert sce.log_prob.type == Tensor(F32, (4, 5, 6, 7))


# -- 4. every version of every operator: inferred type == evaluated value's type ---------------


_VERSIONS = [(op, since) for op in sorted(VISION_OPS) for since in specs.versions(op, "")]


def test_every_version_has_a_rule() -> None:
    rules = default_rules()
    missing = [(op, v) for op, v in _VERSIONS if rules.lookup("", op, v) is None]
    assert not missing, f"no inference rule for {missing}"


@pytest.mark.parametrize(("op_type", "since"), _VERSIONS, ids=[f"{o}-{v}" for o, v in _VERSIONS])
def test_every_version_matches_the_evaluator(op_type: str, since: int) -> None:
    for case in version_cases(op_type, since):
        model, feeds = node_model(case, since)
        inferred = model_from_proto(oc.infer_shapes(model, strict=True)).graph.outputs
        values = oc.evaluate(model, feeds)
        for index, info in enumerate(inferred):
            where = f"{op_type}-{since} output {index} ({case.attributes})"
            if (op_type, index) in DATA_DEPENDENT:
                _assert_static_part(op_type, info.type, values[info.name], where)
            else:
                assert_type_matches_value(info.type, values[info.name], where)


# -- 5. error messages: operator, argument, expected and received -------------------------------

_CLASHES: list[tuple[str, Any, str]] = [
    (
        "conv pads with SAME",
        lambda: v22.Conv(_arg((1, 2, 5, 5)), _data((3, 2, 3, 3)), auto_pad="SAME_UPPER",
                         pads=[1, 1, 1, 1]),
        r"^Conv: pads=\[1, 1, 1, 1\] cannot be combined with auto_pad='SAME_UPPER'",
    ),
    (
        "conv kernel_shape vs W",
        lambda: v22.Conv(_arg((1, 2, 5, 5)), _data((3, 2, 3, 3)), kernel_shape=[2, 3]),
        r"^Conv: kernel_shape=\[2, 3\] does not match weight W's shape: 2 vs 3",
    ),
    (
        "conv weight rank",
        lambda: v22.Conv(_arg((1, 2, 5, 5)), _data((3, 2, 3))),
        r"^Conv: weight W must have the rank of X \(4\), got W \[3, 2, 3\]",
    ),
    (
        "conv group divides",
        lambda: v22.Conv(_arg((1, 3, 5, 5)), _data((4, 1, 3, 3)), group=2),
        r"^Conv: group=2 must divide the 3 input channels of X",
    ),
    (
        "conv transpose negative output",
        lambda: v22.ConvTranspose(_arg((1, 1, 1)), _data((1, 1, 1)), pads=[1, 1]),
        r"^ConvTranspose: pads .* leave a negative output size \(-1\)",
    ),
    (
        "col2im block count",
        lambda: v18.Col2Im(_arg((1, 8, 15)), np.array([5, 5]), np.array([2, 2])),
        r"^Col2Im: input dim 2 must be the number of blocks \[4, 4\] .*: 15 vs 16",
    ),
    (
        "deform conv offset",
        lambda: v22.DeformConv(_arg((1, 2, 5, 5)), _data((4, 2, 3, 3)),
                               _arg((1, 9, 3, 3), name="offset")),
        r"^DeformConv: offset must have shape \[1, 18, 3, 3\]: 9 vs 18",
    ),
    (
        "causal conv state",
        lambda: v27.CausalConvWithState(_arg((2, 4, 10)), _data((4, 1, 3)), None,
                                        _arg((2, 4, 3), name="past")),
        r"^CausalConvWithState: past_state must be \(batch, channels, k - 1\), dim 2: 3 vs 2",
    ),
    (
        "max unpool output_shape",
        lambda: v22.MaxUnpool(_arg((1, 1, 2, 2)), _arg((1, 1, 2, 2), np.int64, "I"),
                              np.array([1, 1, 3, 5]), kernel_shape=[2, 2], strides=[2, 2]),
        r"^MaxUnpool: output_shape must keep N and C and be at least \[1, 1, 4, 4\], got",
    ),
    (
        "roi align regions",
        lambda: v22.RoiAlign(_arg((1, 2, 5, 5)), _arg((3, 4), name="rois"),
                             _arg((4,), np.int64, "b")),
        r"^RoiAlign: batch_indices must have one entry per region of rois: 3 vs 4",
    ),
    (
        "nms boxes",
        lambda: v22.NonMaxSuppression(_arg((1, 6, 4), name="b"), _arg((1, 2, 5), name="s")),
        r"^NonMaxSuppression: scores dim 2 must be the number of boxes .*: 5 vs 6",
    ),
    (
        "batch norm channels",
        lambda: v15.BatchNormalization(_arg((2, 3, 4)), *([_data((4,))] * 4)),
        r"^BatchNormalization: scale must have one entry per channel of X: 4 vs 3",
    ),
    (
        "batch norm rank",
        lambda: v15.BatchNormalization(_arg((2, 3, 4)), *([_data((3, 1))] * 4)),
        r"^BatchNormalization: input scale must have rank 1, got shape \[3, 1\]",
    ),
    (
        "group norm groups",
        lambda: v21.GroupNormalization(_arg((2, 6, 4)), _data((6,)), _data((6,)), num_groups=4),
        r"^GroupNormalization: num_groups=4 must be positive and divide the 6 channels",
    ),
    (
        "layer norm scale",
        lambda: v17.LayerNormalization(_arg((2, 3, 4)), _data((3,)), axis=1),
        r"^LayerNormalization: Scale \[3\] must broadcast to the normalized shape \[3, 4\]",
    ),
    (
        "layer norm stash type",
        lambda: v17.LayerNormalization(_arg((2, 3)), _data((3,)), stash_type=7),
        r"^LayerNormalization: stash_type must be one of .*, got 7",
    ),
    (
        "loss target",
        lambda: v22.NegativeLogLikelihoodLoss(_arg((4, 5, 6)), _arg((4, 7), np.int64, "t")),
        r"^NegativeLogLikelihoodLoss: target must have shape \[4, 6\], dim 1: 7 vs 6",
    ),
    (
        "dropout ratio",
        lambda: v22.Dropout(_arg((3,)), np.array([0.1, 0.2], np.float32)),
        r"^Dropout: ratio must be a scalar, got shape \[2\]",
    ),
    (
        "resize both factors",
        lambda: v19.Resize(_arg((2, 3)), None, np.ones(2, np.float32), np.array([2, 3])),
        r"^Resize: only one of scales and sizes may be given",
    ),
    (
        "affine grid theta",
        lambda: v20.AffineGrid(_arg((2, 3, 4)), np.array([2, 1, 4, 4])),
        r"^AffineGrid: theta must be \(N, 2, 3\) for 2-D sizes, dim 1: 3 vs 2",
    ),
    (
        "center crop pad axes",
        lambda: v18.CenterCropPad(_arg((4, 4, 3)), np.array([2, 2, 2]), axes=[0, 1]),
        r"^CenterCropPad: shape must have 2 entries \(one per axis\), got 3",
    ),
    (
        "image decoder stream",
        lambda: v20.ImageDecoder(_arg((2, 8), np.uint8)),
        r"^ImageDecoder: input encoded_stream must have rank 1, got shape \[2, 8\]",
    ),
    (
        "grid sample 16 rank",
        lambda: v16.GridSample(_arg((1, 2, 3, 4, 5)), _arg((1, 2, 2, 2, 3), name="g")),
        r"^GridSample: version 16 samples 4-D inputs \(N, C, H, W\), got rank 5",
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("build", "pattern"), [c[1:] for c in _CLASHES], ids=[c[0] for c in _CLASHES]
)
def test_clashes_raise_clear_errors_at_build_time(build: Any, pattern: str) -> None:
    with pytest.raises(oc.InferenceError, match=pattern):
        build()


# values outside an attribute's enumerated set (declared in the spec) are refused at the call,
# before any inference rule runs
_REFUSED_VALUES = [
    (
        "lp norm p",
        lambda: v22.LpNormalization(_arg((2, 3)), p=3),  # type: ignore[arg-type]
        r"^LpNormalization: attribute 'p' must be one of 1, 2, got 3",
    ),
    (
        "resize policy",
        lambda: v19.Resize(_arg((2, 3)), None, None, np.array([2, 3]),
                           keep_aspect_ratio_policy="fit"),  # type: ignore[arg-type]
        r"^Resize: attribute 'keep_aspect_ratio_policy' must be one of 'stretch', 'not_larger', "
        r"'not_smaller', got 'fit'",
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("build", "pattern"), [c[1:] for c in _REFUSED_VALUES], ids=[c[0] for c in _REFUSED_VALUES]
)
def test_values_outside_the_enumerated_set_are_refused_at_the_call(
    build: Any, pattern: str
) -> None:
    with pytest.raises(oc.OpAttributeError, match=pattern):
        build()


def test_a_loss_reduction_outside_the_spec_is_refused_at_the_call() -> None:
    with pytest.raises(oc.OpAttributeError, match="'sum', 'mean', got 'avg'"):
        v22.SoftmaxCrossEntropyLoss(
            _arg((4, 5)),
            _arg((4,), np.int64, "t"),
            reduction="avg",  # type: ignore[arg-type]
        )


# -- 6. tricky geometry against onnxruntime, an independent implementation ---------------------


_F = _data
_ORT_CASES: list[tuple[str, int, list[np.ndarray | None], dict[str, Any]]] = [
    # A ceil-mode window that would start past the input (and its padding) is dropped.
    ("MaxPool", 22, [_F((1, 1, 5))], {"kernel_shape": [1], "strides": [3], "ceil_mode": 1,
                                      "auto_pad": "VALID"}),
    ("MaxPool", 22, [_F((1, 1, 5))], {"kernel_shape": [1], "strides": [3], "ceil_mode": 1}),
    ("AveragePool", 22, [_F((1, 1, 5, 6))], {"kernel_shape": [2, 3], "strides": [2, 2],
                                             "pads": [0, 1, 1, 0], "ceil_mode": 1}),
    ("MaxPool", 22, [_F((1, 2, 9, 8))], {"kernel_shape": [3, 2], "dilations": [2, 3],
                                         "strides": [2, 1], "ceil_mode": 1}),
    ("LpPool", 22, [_F((1, 2, 7, 7))], {"kernel_shape": [2, 2], "strides": [3, 3],
                                        "ceil_mode": 1, "pads": [1, 1, 1, 1]}),
    ("AveragePool", 22, [_F((1, 1, 7, 8))], {"kernel_shape": [3, 3], "strides": [3, 2],
                                             "auto_pad": "SAME_LOWER"}),
    ("Conv", 22, [_F((1, 2, 7, 9)), _F((3, 2, 3, 2))], {"auto_pad": "SAME_LOWER",
                                                        "strides": [2, 3]}),
    ("Conv", 22, [_F((1, 2, 7, 9)), _F((3, 2, 3, 2))], {"strides": [2, 3], "dilations": [2, 3],
                                                        "pads": [2, 0, 1, 1]}),
    ("Conv", 22, [_F((1, 4, 7, 9)), _F((6, 2, 3, 3))], {"group": 2, "pads": [0, 2, 1, 0],
                                                        "strides": [3, 2]}),
    ("ConvTranspose", 22, [_F((1, 2, 3, 4)), _F((2, 3, 3, 4))],
     {"auto_pad": "SAME_UPPER", "strides": [2, 3]}),
    ("ConvTranspose", 22, [_F((1, 2, 3, 4)), _F((2, 3, 3, 2))],
     {"strides": [3, 2], "dilations": [1, 2], "output_padding": [2, 1], "pads": [1, 0, 0, 1]}),
    ("ConvTranspose", 22, [_F((1, 2, 3, 4)), _F((2, 3, 3, 2))], {"output_shape": [9, 9],
                                                                "strides": [3, 2]}),
    ("Resize", 19, [_F((1, 2, 5, 7)), None, None, np.array([4, 4])],
     {"axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"}),
    ("Resize", 19, [_F((1, 2, 5, 7)), None, None, np.array([3, 9])],
     {"axes": [3, 2], "keep_aspect_ratio_policy": "not_smaller"}),
    ("Resize", 19, [_F((1, 2, 5, 7)), None, np.array([1, 1, 0.6, 1.7], np.float32)], {}),
    ("GridSample", 22, [_F((1, 2, 4, 5)), _F((1, 3, 6, 2))], {}),
    ("GridSample", 22, [_F((2, 1, 3, 4, 5)), _F((2, 2, 3, 4, 3))], {"mode": "nearest"}),
    ("Col2Im", 18, [_F((1, 12, 15)), np.array([5, 6]), np.array([2, 2])],
     {"strides": [2, 1], "pads": [1, 0, 0, 0]}),
    ("RoiAlign", 16, [_F((2, 3, 6, 6)), np.array([[0, 0, 3, 3]] * 4, np.float32),
                      np.array([0, 1, 1, 0])], {"output_height": 2, "output_width": 5}),
    ("MaxRoiPool", 1, [_F((1, 3, 6, 6)), np.array([[0, 0, 0, 3, 3]] * 2, np.float32)],
     {"pooled_shape": [3, 2]}),
    ("CenterCropPad", 18, [_F((5, 6, 3)), np.array([3, 8])], {"axes": [0, -2]}),
    ("AffineGrid", 20, [_F((2, 3, 4)), np.array([2, 1, 2, 3, 4])], {}),
    ("MaxUnpool", 22, [_F((1, 1, 2, 2)), np.array([[[[5, 2], [13, 15]]]], np.int64)],
     {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 0, 0]}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("op_type", "opset", "inputs", "attributes"),
    _ORT_CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(_ORT_CASES)],
)
def test_inferred_shape_matches_onnxruntime(
    op_type: str, opset: int, inputs: list[np.ndarray | None], attributes: dict[str, Any]
) -> None:
    module = importlib.import_module(f"onnxcraft.opset.ai.onnx.v{opset}")
    first = inputs[0]
    assert first is not None
    x = oc.arg("X", first.dtype, first.shape)
    result = getattr(module, op_type)(x, *inputs[1:], **attributes)
    var = result[0] if isinstance(result, tuple) else result
    (expected, *_) = run_node(op_type, inputs, opset=opset, **attributes)
    assert var.type == static_type_of(expected)


def test_valid_ceil_mode_drops_window_starting_past_the_input() -> None:
    x = oc.arg("X", np.float32, (1, 1, 5))
    y = v22.MaxPool(x, kernel_shape=[1], strides=[3], ceil_mode=1, auto_pad="VALID").Y
    assert y.type == Tensor(F32, (1, 1, 2))  # windows start at 0 and 3; 6 is past the input
    _check_against_evaluator({"Y": y}, {x: _data((1, 1, 5))})


def test_layer_norm_statistics_of_double_input_take_stash_type() -> None:
    x = oc.arg("X", np.float64, (2, 3))
    outputs = v17.LayerNormalization(x, np.ones(3))
    (expected, mean, inv_std) = run_node(
        "LayerNormalization", [np.ones((2, 3)), np.ones(3)], opset=17, outputs=3
    )
    assert [v.type for v in outputs] == [static_type_of(a) for a in (expected, mean, inv_std)]
    _check_against_evaluator(dict(zip(("Y", "Mean", "InvStdDev"), outputs)), {x: np.ones((2, 3))})
