"""Prepared Convs that read one input alike run as one product (``fuse=True``): the heads of
Inception's branches.

An Inception module gives its input to three 1x1 convolutions (the first branch, and the
reductions before the 3x3 and 5x5 ones). Each multiplies its weights with the same input
columns; with their weights stacked, one product has the rows of all three, so OpenBLAS
packs the input once instead of three times, and the rows of a 16-channel reduction ride
along with a wider product instead of making a narrow one of their own. Per module, with
the bias and the Relu: 0.75-0.88x of the three convolutions' time at batch 1, 0.81-0.91x at
batch 8 (docs/evaluation-speed.md).

The steps stay where they are, each giving its own output. The first to run makes the
stacked product and keeps it for the others (per thread); each returns its own channels, a
view of the stacked output, or copies them into the slice of a Concat that hands one out
(:mod:`onnxcraft.evaluate.concat_targets`). Each output value is still one weight row's
dot product with one input column: the values are those of the convolutions run one by
one (the same bits in every case measured; the prepared convolutions' rounding against the
nodes as written either way). A step given another input than the one the product was made
from, or whose product failed, runs its own convolution (which says what is wrong).

Taken for prepared Convs (:class:`onnxcraft.ops.conv.prepared.PreparedConv`) reading the
same value with equal attributes and one group, weights of one type and kernel shape, each
with a bias or none, each with a Relu or none, without a residual Add, whose outputs are
not graph outputs.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

import numpy as np

from onnxcraft.errors import OnnxcraftError
from onnxcraft.evaluate.step_links import with_replacements
from onnxcraft.ops.conv.prepared import PreparedConv, prepare_conv
from onnxcraft.ops.kernel_api import Step

__all__ = ["SiblingConv", "stack_sibling_convs"]


def stack_sibling_convs(steps: list[Step], kept: set[str]) -> list[Step]:
    """``steps`` with each group of alike prepared Convs reading one value stacked, as
    above (``kept``: the graph's outputs)."""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for index, step in enumerate(steps):
        key = _stacking_key(step, kept)
        if key is not None:
            groups.setdefault(key, []).append(index)
    replaced: dict[int, Step] = {}
    for indices in groups.values():
        if len(indices) < 2:
            continue
        convs = [steps[i].fn for i in indices]
        prepared = [conv for conv in convs if isinstance(conv, PreparedConv)]
        assert len(prepared) == len(convs)  # (what _stacking_key takes)
        stacked = _Stacked.of(prepared)
        if stacked is None:
            continue
        for slot, (index, conv) in enumerate(zip(indices, prepared, strict=True)):
            replaced[index] = replace(steps[index], fn=SiblingConv(stacked, slot, conv))
    return with_replacements(steps, replaced)


def _stacking_key(step: Step, kept: set[str]) -> tuple[Any, ...] | None:
    """What alike steps share (None: the step is not one to stack)."""
    conv = step.fn
    if not isinstance(conv, PreparedConv) or conv.add is not None or conv.group != 1:
        return None
    if len(step.inputs) != 1 or not step.inputs[0] or len(step.outputs) != 1:
        return None
    if not step.outputs[0] or step.outputs[0] in kept:
        return None
    attributes = tuple(sorted((name, repr(value)) for name, value in conv.attributes.items()))
    weight = conv.weight
    return (
        step.inputs[0],
        attributes,
        weight.dtype,
        weight.shape[1:],
        conv.bias is not None,
        conv.relu,
    )


class _Stacked:
    """The stacked convolution of a group, and its last product per thread."""

    def __init__(self, conv: PreparedConv, bounds: list[tuple[int, int]]) -> None:
        self.conv = conv
        self.bounds = bounds  # each step's channels of the stacked output
        self.local = threading.local()

    @classmethod
    def of(cls, convs: list[PreparedConv]) -> _Stacked | None:
        first = convs[0]
        weight = np.concatenate([conv.weight for conv in convs])
        bias = None
        if first.bias is not None:
            bias = np.concatenate([conv.bias for conv in convs])
        conv = prepare_conv(weight, bias, first.attributes, relu=first.relu, work=first.work)
        if conv is None:
            return None
        bounds, start = [], 0
        for part in convs:
            bounds.append((start, start + part.weight.shape[0]))
            start += part.weight.shape[0]
        return cls(conv, bounds)

    def channels(self, slot: int, x: Any) -> np.ndarray | None:
        """Step ``slot``'s channels of the product of ``x`` (None: run its own convolution)."""
        local = self.local
        if slot == 0:
            local.x = local.y = None
            try:
                local.y = self.conv(x)
            except OnnxcraftError:
                return None  # (the step's own convolution says what is wrong)
            local.x = x
        elif getattr(local, "x", None) is not x:
            return None
        y = local.y
        if slot == len(self.bounds) - 1:  # the last step: nothing is kept past the run
            local.x = local.y = None
        if not isinstance(y, np.ndarray) or y.ndim < 2:
            return None
        start, stop = self.bounds[slot]
        return y[:, start:stop]


class SiblingConv:
    """One step of a stacked group: its channels of the group's product. Called as a
    prepared convolution is (``out``: a Concat's slice to copy them into)."""

    def __init__(self, stacked: _Stacked, slot: int, own: PreparedConv) -> None:
        self.stacked = stacked
        self.slot = slot
        self.own = own  # the step's convolution alone, for input the product was not made of

    def __call__(self, x: Any, residual: Any = None, out: np.ndarray | None = None) -> Any:
        if residual is not None:  # (never given: stacked steps have no Add)
            return self.own(x, residual, out=out)
        channels = self.stacked.channels(self.slot, x)
        if channels is None:
            return self.own(x, out=out)
        if (
            out is not None
            and out.shape == channels.shape
            and out.dtype == channels.dtype
            and out.flags.writeable
        ):
            np.copyto(out, channels)
            return out
        return channels
