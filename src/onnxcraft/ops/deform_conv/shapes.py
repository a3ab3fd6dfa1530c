"""The channel counts of DeformConv's offset and mask, computed alike by the rule and the kernel.

Every kernel tap of every offset group has one mask value and one offset per spatial axis at each
output position: offset is (N, offset_group * taps * nd, *out), mask (N, offset_group * taps,
*out). The output itself is a convolution's (:mod:`onnxcraft.ops.conv.shapes`,
:mod:`onnxcraft.ops.windows`).
"""

from __future__ import annotations

__all__ = ["mask_channels", "offset_channels"]


def mask_channels(offset_group: int, taps: int) -> int:
    """Channels of the mask: one per kernel tap (``taps`` = prod(kernel)) of each offset group."""
    return offset_group * taps


def offset_channels(offset_group: int, taps: int, nd: int) -> int:
    """Channels of offset: one per spatial axis (``nd``) for each tap of each offset group."""
    return mask_channels(offset_group, taps) * nd
