"""A prepared convolution's output made with a channel of ones after it, for the 1x1
convolutions with a bias that read it (``fuse=True``).

A 1x1 stride-1 convolution multiplies its images themselves; its bias then costs a pass
over its output (or, when the input has fewer channels, a copy of the input with a row of
ones). When the step making the input is a prepared convolution, or a convolution fused
with its pool, that step can allocate its output with one channel more, filled with ones:
the 1x1 convolution then multiplies the whole array by its weights with the bias as a last
column, and the bias costs nothing (:mod:`onnxcraft.ops.conv.ones_channel`). ResNet-50's
1x1 convolutions read such outputs, as do ShuffleNet's after its depthwise ones and
SqueezeNet's expands.

The bias is then summed inside the product instead of added after it: the rounding of a
prepared convolution either way (``tests/evaluate/test_ones_channels.py``). Every other
reader of the value sees the same values, through a view of the channels before the ones.
Only a batch of one image is made so: the view of several images would be strided.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from onnxcraft.evaluate.conv_pool import ConvThenPool
from onnxcraft.ops.conv.ones_channel import OnesChannel
from onnxcraft.ops.conv.prepared import PreparedConv
from onnxcraft.ops.kernel_api import Step

__all__ = ["link_ones_channels"]


def link_ones_channels(steps: list[Step], kept: set[str]) -> list[Step]:
    """``steps``, their prepared convolutions linked to the makers of their inputs where a
    channel of ones helps (the links live on the kernels: the steps stay as they are)."""
    readers: dict[str, list[PreparedConv]] = defaultdict(list)
    for step in steps:
        if isinstance(step.fn, PreparedConv) and step.inputs and _bias_by_ones(step.fn):
            readers[step.inputs[0]].append(step.fn)
    for step in steps:
        maker = step.fn
        if not isinstance(maker, (PreparedConv, ConvThenPool)) or len(step.outputs) != 1:
            continue
        value = step.outputs[0]
        if not value or value in kept or value not in readers or maker.spare is not None:
            continue
        link = OnesChannel()
        maker.spare = link
        for conv in readers[value]:
            conv.ones_from = link
    return steps


def _bias_by_ones(conv: PreparedConv) -> bool:
    """Whether ``conv`` is a 1x1, stride-1, unpadded convolution with a bias, of one group:
    one that multiplies its images themselves (checked again on each input's geometry)."""
    if conv.bias is None or conv.group != 1 or conv.weight.shape[2:] != (1, 1):
        return False
    attributes: dict[str, Any] = conv.attributes
    if any(s != 1 for s in attributes.get("strides") or ()):
        return False
    return not any(attributes.get("pads") or ())
