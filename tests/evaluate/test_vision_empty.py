"""Empty batches and windowless outputs give correctly shaped empty results, not errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from onnxcraft.ops.conv.kernels import conv
from onnxcraft.ops.conv_transpose.kernels import conv_transpose
from onnxcraft.ops.grid.kernels import grid_sample_20
from onnxcraft.ops.loss.kernels import softmax_cross_entropy_loss
from onnxcraft.ops.nms.kernels import non_max_suppression
from onnxcraft.ops.normalization.kernels import (
    batch_norm_15,
    group_norm_21,
    instance_norm,
    layer_norm,
    lrn,
)
from onnxcraft.ops.pool.kernels import average_pool, global_average_pool, lp_pool, max_pool
from onnxcraft.ops.resize.kernels import resize
from onnxcraft.ops.roi.kernels import max_roi_pool, roi_align_16

EMPTY = np.zeros((0, 2, 5, 5), np.float32)
ONES = np.ones(2, np.float32)
IMAGE = np.zeros((1, 2, 5, 5), np.float32)

CASES: dict[str, tuple[Callable[[], Any], tuple[int, ...]]] = {
    "MaxPool": (lambda: max_pool(EMPTY, kernel_shape=[2, 2])[0], (0, 2, 4, 4)),
    "AveragePool": (lambda: average_pool(EMPTY, kernel_shape=[2, 2], pads=[1] * 4), (0, 2, 6, 6)),
    "LpPool": (lambda: lp_pool(EMPTY, kernel_shape=[2, 2]), (0, 2, 4, 4)),
    "GlobalAveragePool": (lambda: global_average_pool(EMPTY), (0, 2, 1, 1)),
    "Conv": (lambda: conv(EMPTY, np.zeros((3, 2, 3, 3), np.float32)), (0, 3, 3, 3)),
    "ConvTranspose": (
        lambda: conv_transpose(EMPTY, np.zeros((2, 3, 3, 3), np.float32)),
        (0, 3, 7, 7),
    ),
    "BatchNormalization": (lambda: batch_norm_15(EMPTY, ONES, ONES, ONES, ONES), (0, 2, 5, 5)),
    "InstanceNormalization": (lambda: instance_norm(EMPTY, ONES, ONES), (0, 2, 5, 5)),
    "LayerNormalization": (lambda: layer_norm(EMPTY, np.ones(5, np.float32))[0], (0, 2, 5, 5)),
    "GroupNormalization": (lambda: group_norm_21(EMPTY, ONES, ONES, num_groups=2), (0, 2, 5, 5)),
    "LRN": (lambda: lrn(EMPTY, size=3), (0, 2, 5, 5)),
    "Resize": (
        lambda: resize(EMPTY, None, np.array([1, 1, 2, 2], np.float32), mode="linear"),
        (0, 2, 10, 10),
    ),
    "GridSample": (lambda: grid_sample_20(EMPTY, np.zeros((0, 3, 3, 2), np.float32)), (0, 2, 3, 3)),
    "RoiAlign": (
        lambda: roi_align_16(IMAGE, np.zeros((0, 4), np.float32), np.zeros(0, np.int64)),
        (0, 2, 1, 1),
    ),
    "MaxRoiPool": (
        lambda: max_roi_pool(IMAGE, np.zeros((0, 5), np.float32), pooled_shape=[2, 2]),
        (0, 2, 2, 2),
    ),
    "NonMaxSuppression": (
        lambda: non_max_suppression(
            np.zeros((1, 0, 4), np.float32), np.zeros((1, 1, 0), np.float32), np.array([3])
        ),
        (0, 3),
    ),
    "SoftmaxCrossEntropyLoss": (
        lambda: softmax_cross_entropy_loss(
            np.zeros((0, 3), np.float32), np.zeros(0, np.int64), reduction="none"
        )[0],
        (0,),
    ),
    "MaxPool without a whole window": (
        lambda: max_pool(np.zeros((1, 1, 2, 2), np.float32), kernel_shape=[3, 3])[0],
        (1, 1, 0, 0),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_empty_shapes(name: str) -> None:
    make, shape = CASES[name]
    assert make().shape == shape
