"""A value made with a channel of ones after it, for the 1x1 convolutions with a bias that
read it (``fuse=True``).

A 1x1 stride-1 convolution multiplies its images themselves; its bias then costs a pass
over its output (or, when the input has fewer channels, a copy of the input with a row of
ones). When the step making the input makes its own output array, it can allocate it with
one channel more, filled with ones: the 1x1 convolution then multiplies the whole array by
its weights with the bias as a last column, and the bias costs nothing
(:mod:`onnxcraft.ops.conv.ones_channel`). The makers: prepared convolutions, convolutions
fused with their pool, DenseNet's clamps (:mod:`onnxcraft.evaluate.norm_relu_conv`), and
Concats whose inputs write into their output (:mod:`onnxcraft.evaluate.concat_targets`).
The readers: prepared 1x1 convolutions, alone or stacked with their siblings
(:mod:`onnxcraft.evaluate.sibling_convs`): ResNet-50's, DenseNet's bottlenecks, Inception's
branch heads, SqueezeNet's squeezes and expands, ShuffleNet's after its depthwise ones.

The bias is then summed inside the product instead of added after it: the rounding of a
prepared convolution either way (``tests/evaluate/test_ones_channels.py``). Every other
reader of the value sees the same values, through a view of the channels before the ones.
Only a batch of one image is made so: the view of several images would be strided, which
slowed the steps reading it more than the bias saved (ResNet-50 and SqueezeNet at batch 8,
1.08x).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from onnxcraft.evaluate.conv_pool import ConvThenPool
from onnxcraft.evaluate.norm_relu_conv import ChannelClamp
from onnxcraft.evaluate.sibling_convs import SiblingConv
from onnxcraft.ops.conv.ones_channel import OnesChannel
from onnxcraft.ops.conv.prepared import PreparedConv
from onnxcraft.ops.kernel_api import Step

__all__ = ["link_ones_channels"]

# Steps whose kernel makes its own output array, which can take a channel of ones
_MAKERS = (PreparedConv, ConvThenPool, ChannelClamp)


def link_ones_channels(
    steps: list[Step], kept: set[str], is_library_step: Callable[[Step, str], bool]
) -> dict[str, OnesChannel]:
    """Link the prepared convolutions of ``steps`` (alone or stacked with their siblings) to
    the makers of their inputs where a channel of ones helps; the links live on the
    kernels, so the steps stay as they are. Returns the links of values a Concat makes, by
    name, for :func:`onnxcraft.evaluate.concat_targets.write_into_concats` to give to the
    Concat's output (``kept``: the graph's outputs, handed out as arrays of their own)."""
    readers: dict[str, list[PreparedConv]] = defaultdict(list)
    for step in steps:
        reader = step.fn
        if isinstance(reader, SiblingConv):  # the group's stacked product reads the input
            reader = reader.stacked.conv if reader.slot == 0 else None
        if isinstance(reader, PreparedConv) and step.inputs and _bias_by_ones(reader):
            readers[step.inputs[0]].append(reader)
    concats: dict[str, OnesChannel] = {}
    for step in steps:
        maker = step.fn
        if len(step.outputs) != 1 or not step.outputs[0] or step.outputs[0] in kept:
            continue
        value = step.outputs[0]
        if value not in readers:
            continue
        if isinstance(maker, _MAKERS) and maker.spare is None:
            link = maker.spare = OnesChannel()
        elif is_library_step(step, "Concat") and step.attributes.get("axis") == 1:
            link = concats[value] = OnesChannel()  # (taken if its inputs write into its output)
        else:
            continue
        for conv in readers[value]:
            conv.ones_from = link
    return concats


def _bias_by_ones(conv: PreparedConv) -> bool:
    """Whether ``conv`` is a 1x1, stride-1, unpadded convolution with a bias, of one group:
    one that multiplies its images themselves (checked again on each input's geometry)."""
    if conv.bias is None or conv.group != 1 or conv.weight.shape[2:] != (1, 1):
        return False
    attributes: dict[str, Any] = conv.attributes
    if any(s != 1 for s in attributes.get("strides") or ()):
        return False
    return not any(attributes.get("pads") or ())
