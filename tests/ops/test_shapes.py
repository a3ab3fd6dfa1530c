"""The shape formulas that an inference rule and its kernel share (``ops/windows.py`` and
``ops/<family>/shapes.py``), checked against values worked out by hand from the ONNX formulas."""

from __future__ import annotations

import pytest

from onnxcraft.ops import windows
from onnxcraft.ops.attention import shapes as attention_shapes
from onnxcraft.ops.conv import shapes as conv_shapes
from onnxcraft.ops.conv_transpose import shapes as conv_transpose_shapes
from onnxcraft.ops.deform_conv import shapes as deform_conv_shapes
from onnxcraft.ops.indexing import shapes as indexing_shapes
from onnxcraft.ops.resize import shapes as resize_shapes
from onnxcraft.ops.shape import shapes as shape_shapes
from onnxcraft.ops.signal import shapes as signal_shapes
from onnxcraft.ops.tensor_ops import shapes as tensor_ops_shapes

# --- Resize: floor(size * scale); one common scale, rounded half up, for kept aspect ratios ---


@pytest.mark.parametrize(
    ("size", "scale", "expected"),
    [
        (4, 2.0, 8),
        (5, 0.5, 2),  # 2.5 floors to 2
        (3, 1.5, 4),  # 4.5 floors to 4
        (7, 0.3, 2),  # 2.1
        (10, 0.29, 2),  # 2.9 floors, never rounds
        (0, 3.0, 0),
        (6, 1.0, 6),
    ],
)
def test_resize_scaled_size(size: int, scale: float, expected: int) -> None:
    assert resize_shapes.scaled_size(size, scale) == expected


def test_resize_size_ratio() -> None:
    assert resize_shapes.size_ratio(6, 4) == 1.5
    assert resize_shapes.size_ratio(2, 8) == 0.25
    assert resize_shapes.size_ratio(5, 0) == 1.0  # an empty axis has no ratio to keep


def test_resize_kept_aspect_not_larger() -> None:
    # ratios 20/10 = 2 and 30/20 = 1.5: the smaller one, so neither axis exceeds its request.
    scale, sizes = resize_shapes.kept_aspect_sizes([10, 20], [20, 30], "not_larger")
    assert scale == 1.5
    assert sizes == [15, 30]


def test_resize_kept_aspect_not_smaller() -> None:
    scale, sizes = resize_shapes.kept_aspect_sizes([10, 20], [20, 30], "not_smaller")
    assert scale == 2.0
    assert sizes == [20, 40]


def test_resize_kept_aspect_rounds_half_up() -> None:
    # ratios 5/4 = 1.25 and 3/3 = 1: not_smaller takes 1.25, and 3 * 1.25 = 3.75 -> 4;
    # not_larger takes 1, and 4 * 1 = 4, 3 * 1 = 3.
    assert resize_shapes.kept_aspect_sizes([4, 3], [5, 3], "not_smaller") == (1.25, [5, 4])
    assert resize_shapes.kept_aspect_sizes([4, 3], [5, 3], "not_larger") == (1.0, [4, 3])
    # 2 * 1.25 = 2.5 rounds half up to 3 (not to the even 2).
    assert resize_shapes.kept_aspect_sizes([4, 2], [5, 2], "not_smaller") == (1.25, [5, 3])


# --- Sliding windows (Conv, ConvTranspose, DeformConv, pools, Col2Im, MaxUnpool) ---


@pytest.mark.parametrize(
    ("kernel", "dilation", "expected"),
    [(3, 1, 3), (3, 2, 5), (1, 4, 1), (4, 3, 10)],  # (k - 1) * d + 1
)
def test_dilated_extent(kernel: int, dilation: int, expected: int) -> None:
    assert windows.dilated_extent(kernel, dilation) == expected


@pytest.mark.parametrize(
    ("size", "begin", "end", "extent", "stride", "expected"),
    [
        # floor((in + pad_begin + pad_end - extent) / stride) + 1
        (5, 0, 0, 3, 1, 3),  # (5 - 3) / 1 + 1
        (5, 1, 1, 3, 1, 5),  # "same" by explicit pads: (7 - 3) / 1 + 1
        (7, 0, 0, 3, 2, 3),  # (7 - 3) / 2 + 1
        (8, 0, 0, 3, 2, 3),  # floor(5 / 2) + 1 = 3: the last column is never read
        (224, 3, 3, 7, 2, 112),  # ResNet's stem: floor(229 / 2) + 1
        (10, 0, 0, 5, 3, 2),  # dilated kernel 3 at dilation 2: extent 5, floor(5 / 3) + 1
        (3, 0, 0, 3, 1, 1),  # exactly one window
        (2, 0, 0, 3, 1, 0),  # the window does not fit
        (1, 1, 0, 3, 1, 0),  # nor with one pad
    ],
)
def test_window_count_floor(
    size: int, begin: int, end: int, extent: int, stride: int, expected: int
) -> None:
    assert windows.window_count(size, begin, end, extent, stride) == expected
    assert windows.window_count(size, begin, end, extent, stride, ceil_mode=False) == expected


@pytest.mark.parametrize(
    ("size", "begin", "end", "extent", "stride", "expected"),
    [
        # ceil((in + pads - extent) / stride) + 1, dropping a window starting in the end padding
        (8, 0, 0, 3, 2, 4),  # ceil(5 / 2) + 1 = 4; the 4th window starts at 6 < 8
        (7, 0, 0, 3, 2, 3),  # (7 - 3) / 2 is exact: ceil changes nothing
        (5, 0, 0, 2, 2, 3),  # ceil(3 / 2) + 1 = 3, starts 0, 2, 4
        (4, 0, 1, 2, 2, 2),  # ceil(3 / 2) + 1 = 3, but the 3rd would start at 4, in the end pad
        (6, 1, 1, 3, 2, 4),  # ceil(5 / 2) + 1 = 4, the 4th starts at 6 < 6 + 1 (input + begin)
        (112, 0, 0, 3, 2, 56),  # ceil(109 / 2) + 1 = 56
    ],
)
def test_window_count_ceil_mode(
    size: int, begin: int, end: int, extent: int, stride: int, expected: int
) -> None:
    assert windows.window_count(size, begin, end, extent, stride, ceil_mode=True) == expected


@pytest.mark.parametrize(
    ("size", "stride", "expected"),
    [(5, 1, 5), (5, 2, 3), (6, 2, 3), (7, 3, 3), (224, 2, 112), (0, 2, 0)],  # ceil(in / stride)
)
def test_same_output_size(size: int, stride: int, expected: int) -> None:
    assert windows.same_output_size(size, stride) == expected


def test_split_padding() -> None:
    assert windows.split_padding(4, upper=True) == (2, 2)
    assert windows.split_padding(4, upper=False) == (2, 2)
    assert windows.split_padding(3, upper=True) == (1, 2)  # SAME_UPPER: the odd one at the end
    assert windows.split_padding(3, upper=False) == (2, 1)  # SAME_LOWER: at the beginning
    assert windows.split_padding(0, upper=True) == (0, 0)
    # A negative total (ConvTranspose asked for a larger output) floors as Python does.
    assert windows.split_padding(-3, upper=True) == (-2, -1)
    assert windows.split_padding(-3, upper=False) == (-1, -2)


@pytest.mark.parametrize(
    ("size", "extent", "stride", "upper", "expected"),
    [
        # total = max(0, (ceil(in / stride) - 1) * stride + extent - in)
        (5, 3, 1, True, (1, 1)),  # out 5: 4 + 3 - 5 = 2
        (6, 3, 2, True, (0, 1)),  # out 3: 4 + 3 - 6 = 1, the odd pad at the end
        (6, 3, 2, False, (1, 0)),  # ... at the beginning for SAME_LOWER
        (7, 4, 2, True, (1, 2)),  # out 4: 6 + 4 - 7 = 3
        (7, 1, 3, True, (0, 0)),  # out 3: 6 + 1 - 7 = 0
        (8, 1, 3, True, (0, 0)),  # out 3: 6 + 1 - 8 = -1, no negative padding
        (224, 7, 2, True, (2, 3)),  # out 112: 222 + 7 - 224 = 5
    ],
)
def test_same_pads(
    size: int, extent: int, stride: int, upper: bool, expected: tuple[int, int]
) -> None:
    assert windows.same_pads(size, extent, stride, upper) == expected


@pytest.mark.parametrize(
    ("size", "stride", "extent", "pads", "output_padding", "expected"),
    [
        # stride * (in - 1) + output_padding + extent - (pad_begin + pad_end)
        (3, 1, 3, 0, 0, 5),  # undoes a valid 3-wide convolution of 5
        (3, 2, 3, 0, 0, 7),
        (3, 2, 3, 2, 1, 6),
        (4, 2, 2, 0, 0, 8),  # MaxUnpool of a 2x2 / stride-2 pool
        (3, 2, 3, 2, 0, 5),  # MaxUnpool with pads 1 + 1
        (5, 1, 3, 2, 0, 5),  # "same" by explicit pads keeps the size
        (1, 1, 1, 3, 0, -2),  # the caller reports negative sizes
    ],
)
def test_transposed_window_size(
    size: int, stride: int, extent: int, pads: int, output_padding: int, expected: int
) -> None:
    assert windows.transposed_window_size(size, stride, extent, pads, output_padding) == expected


def test_same_transposed_size() -> None:
    assert windows.same_transposed_size(5, 2) == 10  # in * stride
    assert windows.same_transposed_size(7, 1) == 7


# --- Convolution channels: X (N, C, ...), W (M, C / group, ...) ---


@pytest.mark.parametrize(
    ("channels", "out_channels", "per_group", "group", "expected"),
    [
        (6, 4, 3, 2, None),  # 6 = 3 * 2, 2 divides 6 and 4
        (8, 8, 1, 8, None),  # depthwise
        (3, 4, 1, 2, "input channels"),  # 2 does not divide 3 (checked first)
        (6, 3, 3, 2, "output channels"),  # 2 does not divide 3
        (6, 4, 2, 2, "channels per group"),  # 2 * 2 = 4, not 6
        (6, 4, 6, 1, None),
        (6, 4, 3, 1, "channels per group"),  # group 1: W must take all 6 channels
        (None, 3, None, 2, "output channels"),  # what is unknown is not checked
        (6, None, None, 4, "input channels"),
        (6, 4, None, 2, None),
        (None, None, 5, 2, None),
    ],
)
def test_conv_group_mismatch(
    channels: int | None,
    out_channels: int | None,
    per_group: int | None,
    group: int,
    expected: str | None,
) -> None:
    assert conv_shapes.group_mismatch(channels, out_channels, per_group, group) == expected


def test_conv_transpose_output_channels() -> None:
    # W is (C, M / group, ...): 3 channels per group in 2 groups give M = 6.
    assert conv_transpose_shapes.transposed_output_channels(3, 2) == 6
    assert conv_transpose_shapes.transposed_output_channels(5, 1) == 5


def test_deform_conv_offset_and_mask_channels() -> None:
    # A 3x3 kernel (9 taps) in 2 offset groups over 2 spatial axes: 2 * 9 * 2 offsets and
    # 2 * 9 mask values per output position.
    assert deform_conv_shapes.offset_channels(2, 9, 2) == 36
    assert deform_conv_shapes.mask_channels(2, 9) == 18
    assert deform_conv_shapes.offset_channels(1, 27, 3) == 81  # 3x3x3 kernel in 3-D


# --- Pad: pads = [x1_begin, x2_begin, ..., x1_end, x2_end, ...] over the padded axes ---


def test_pads_by_axis_every_axis() -> None:
    # A 3-D input padded on every axis: begins (1, 0, 2), ends (3, 4, 0).
    assert tensor_ops_shapes.pads_by_axis([1, 0, 2, 3, 4, 0], [0, 1, 2]) == {
        0: (1, 3),
        1: (0, 4),
        2: (2, 0),
    }


def test_pads_by_axis_follows_the_axes_order() -> None:
    # axes (2, 0): the first begin/end pair belongs to axis 2; negative pads crop.
    assert tensor_ops_shapes.pads_by_axis([5, -1, 6, 2], [2, 0]) == {2: (5, 6), 0: (-1, 2)}


def test_pads_by_axis_keeps_symbolic_entries() -> None:
    # The rule passes dims: a pad taken from a shape may be a symbol or unknown.
    assert tensor_ops_shapes.pads_by_axis(["P", 0, None, 1], [0, 1]) == {0: ("P", None), 1: (0, 1)}


# --- Slice: negative bounds count from the end, then clamp to [0, dim] (forward) or
# [-1, dim - 1] (backward) ---


@pytest.mark.parametrize(
    ("dim", "start", "end", "step", "bounds", "indices"),
    [
        (10, 2, 7, 1, (2, 7), [2, 3, 4, 5, 6]),
        (10, 1, 8, 3, (1, 8), [1, 4, 7]),
        (10, -3, 10, 1, (7, 10), [7, 8, 9]),  # -3 + 10 = 7
        (10, 0, -1, 1, (0, 9), list(range(9))),  # -1 + 10 = 9
        (10, -20, 3, 1, (0, 3), [0, 1, 2]),  # -20 + 10 = -10 clamps to 0
        (10, 5, 2**63 - 1, 1, (5, 10), [5, 6, 7, 8, 9]),  # INT64_MAX: "to the end"
        (10, 8, 3, 1, (8, 3), []),  # empty going forward
        (10, 12, 20, 1, (10, 10), []),
        (5, -1, -6, -1, (4, -1), [4, 3, 2, 1, 0]),  # backward through index 0: -6 + 5 = -1
        (5, 20, 1, -2, (4, 1), [4, 2]),  # a start past the end clamps to dim - 1
        (5, 3, -100, -1, (3, -1), [3, 2, 1, 0]),  # -100 + 5 = -95 clamps to -1
        (5, -10, 0, -1, (0, 0), []),  # -10 + 5 = -5: start clamps to 0, nothing before 0
        (0, 0, 5, 1, (0, 0), []),
        (0, 0, -1, -1, (-1, -1), []),  # an empty axis clamps to dim - 1 = -1 backward
    ],
)
def test_slice_bounds_and_indices(
    dim: int, start: int, end: int, step: int, bounds: tuple[int, int], indices: list[int]
) -> None:
    assert shape_shapes.slice_bounds(dim, start, end, step) == bounds
    assert list(shape_shapes.slice_indices(dim, start, end, step)) == indices


def test_shape_start_end_clamp_as_slice_bounds() -> None:
    # Shape-15 on a rank-4 input: start/end clamp like a step-1 Slice of its dims.
    assert shape_shapes.slice_bounds(4, 1, 3, 1) == (1, 3)
    assert shape_shapes.slice_bounds(4, -1, 4, 1) == (3, 4)  # the last dim
    assert shape_shapes.slice_bounds(4, -10, 10, 1) == (0, 4)  # out of range: every dim
    assert shape_shapes.slice_bounds(4, 3, 1, 1) == (3, 1)  # nothing (the length is max(0, ...))


# --- Signal: DFT axis, one-sided spectrum, inverse of a one-sided spectrum ---


@pytest.mark.parametrize(
    ("axis", "rank", "expected"),
    [
        (1, 3, 1),  # [batch, signal, parts]
        (-2, 3, 1),  # -2 + 3
        (0, 3, 0),
        (-3, 3, 0),
        (2, 3, None),  # the parts axis is no signal axis
        (-1, 3, None),
        (3, 3, None),
        (-4, 3, None),
        (2, 4, 2),
    ],
)
def test_signal_axis(axis: int, rank: int, expected: int | None) -> None:
    assert signal_shapes.signal_axis(axis, rank) == expected


@pytest.mark.parametrize(("length", "bins"), [(1, 1), (2, 2), (8, 5), (9, 5), (400, 201)])
def test_one_sided_bins(length: int, bins: int) -> None:
    assert signal_shapes.one_sided_bins(length) == bins  # floor(n / 2) + 1


@pytest.mark.parametrize(("bins", "length"), [(5, 8), (2, 2), (1, 0), (201, 400)])
def test_irfft_length(bins: int, length: int) -> None:
    assert signal_shapes.irfft_length(bins) == length  # 2 * (m - 1)


def test_stft_frames_are_a_window_count() -> None:
    # STFT of 16 samples, frames of 4 every 3 samples: floor((16 - 4) / 3) + 1 = 5.
    assert windows.window_count(16, 0, 0, 4, 3) == 5
    assert windows.window_count(16, 0, 0, 16, 7) == 1  # one frame covers the whole signal


# --- Attention heads: hidden = heads * head_size; query heads in groups per key/value head ---


@pytest.mark.parametrize(
    ("hidden", "heads", "expected"),
    [(64, 8, 8), (768, 12, 64), (6, 1, 6), (0, 4, 0), (10, 4, None), (7, 2, None)],
)
def test_head_size(hidden: int, heads: int, expected: int | None) -> None:
    assert attention_shapes.head_size(hidden, heads) == expected


@pytest.mark.parametrize(
    ("q_heads", "kv_heads", "expected"),
    [(8, 8, 1), (8, 2, 4), (32, 8, 4), (8, 1, 8), (6, 4, None), (8, 0, None), (0, 2, 0)],
)
def test_query_group(q_heads: int, kv_heads: int, expected: int | None) -> None:
    assert attention_shapes.query_group(q_heads, kv_heads) == expected


# --- GatherND: indices.shape[:-1] + data.shape[batch_dims + indices.shape[-1]:] ---


def test_gather_nd_shape() -> None:
    # data (2, 3, 4), indices (5, 2): each of 5 pairs picks a row of 4 -> (5, 4).
    assert indexing_shapes.gather_nd_shape((2, 3, 4), (5, 2), 2, 0) == (5, 4)
    # Full-depth indices pick scalars: (5, 3) into (2, 3, 4) -> (5,).
    assert indexing_shapes.gather_nd_shape((2, 3, 4), (5, 3), 3, 0) == (5,)
    # batch_dims=1: data (2, 3, 4), indices (2, 6, 1) -> (2, 6) + data[1 + 1:] = (2, 6, 4).
    assert indexing_shapes.gather_nd_shape((2, 3, 4), (2, 6, 1), 1, 1) == (2, 6, 4)
    # The rule's symbols and unknown dims pass through.
    assert indexing_shapes.gather_nd_shape(("N", 3, None), ("K", 1), 1, 0) == ("K", 3, None)


@pytest.mark.parametrize(
    ("dim", "parts", "expected"),
    [
        (6, 3, [2, 2, 2]),
        (5, 3, [2, 2, 1]),  # ceil(5 / 3) = 2 each, the last takes what is left
        (4, 3, [2, 2, 0]),
        (7, 2, [4, 3]),
        (0, 3, [0, 0, 0]),  # an empty axis splits into empty parts
        (5, 4, None),  # 2 + 2 + 2 already passes 5: no part is left for the fourth
        (3, 0, None),
    ],
)
def test_split_ceil_sizes(dim: int, parts: int, expected: list[int] | None) -> None:
    assert shape_shapes.ceil_split_sizes(dim, parts) == expected
