"""Prepared convolutions write straight into their Concat's output (``fuse=True``).

SqueezeNet's fire modules end in ``Concat(Relu(Conv(s)), Relu(Conv(s)))`` and Inception's
modules in a Concat of four such branches: as written, each convolution fills a new array
and the Concat copies them all once more. When every input of a Concat (along axis 1) is
the output of a prepared convolution (:class:`onnxcraft.ops.conv.prepared.PreparedConv`,
or a step of stacked ones, :mod:`onnxcraft.evaluate.sibling_convs`) that nothing else
reads, the first of those convolutions allocates the Concat's output and each one writes
into its own slice of it (``out=``); the Concat then returns that array, copying nothing.
The values are those ``np.concatenate`` gives, bit for bit: the same convolutions write
the same numbers, only elsewhere.

The output's shape is learned from the previous run (the first run, and any run after one
whose inputs had other shapes or types, concatenates as written). A Concat checks by
identity that its inputs are the slices handed out in this thread; anything else (a
convolution that could not write into its slice and returned its own array is copied into
the slice instead) concatenates as written.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from onnxcraft.evaluate.sibling_convs import SiblingConv
from onnxcraft.evaluate.step_links import with_replacements
from onnxcraft.ops.conv.ones_channel import OnesChannel
from onnxcraft.ops.conv.prepared import PreparedConv
from onnxcraft.ops.kernel_api import Step

__all__ = ["write_into_concats"]


def write_into_concats(
    steps: list[Step],
    kept: set[str],
    readers: Counter[str],
    is_library_step: Callable[[Step, str], bool],
    spares: Mapping[str, OnesChannel] | None = None,
) -> list[Step]:
    """``steps`` with the prepared convolutions feeding a Concat writing into its output.

    ``kept`` are the graph's outputs (they stay arrays of their own), ``readers`` how many
    steps read each name, ``is_library_step(step, op_type)`` whether a step runs onnxcraft's
    own kernel of a standard operator; ``spares``, by a Concat's output, the link to the 1x1
    convolutions reading it (:mod:`onnxcraft.evaluate.ones_channels`): that output is then
    made with a channel of ones after it.
    """
    producer = {name: index for index, step in enumerate(steps) for name in step.outputs if name}
    replaced: dict[int, Step] = {}
    for index, step in enumerate(steps):
        if not is_library_step(step, "Concat") or len(step.outputs) != 1:
            continue
        names = step.inputs
        if step.attributes.get("axis") != 1 or len(names) < 2 or len(set(names)) != len(names):
            continue
        sources = [producer.get(name) for name in names]
        if not all(
            at is not None
            and at < index
            and at not in replaced
            and isinstance(steps[at].fn, (PreparedConv, SiblingConv))
            and steps[at].outputs == [name]
            and name not in kept
            and readers[name] == 1
            for at, name in zip(sources, names, strict=True)
        ):
            continue
        target = _Target(len(names), None if spares is None else spares.get(step.outputs[0]))
        first = min(at for at in sources if at is not None)
        for slot, at in enumerate(sources):
            assert at is not None
            conv = steps[at].fn
            assert isinstance(conv, (PreparedConv, SiblingConv))
            replaced[at] = replace(steps[at], fn=target.producer(slot, conv, at == first))
        assert step.fn is not None
        replaced[index] = replace(step, fn=target.joiner(step.fn))
    return with_replacements(steps, replaced)


class _Target:
    """One Concat's output and its slices, per thread; the shapes seen in the last run."""

    def __init__(self, count: int, spare: OnesChannel | None = None) -> None:
        self.count = count
        self.spare = spare  # a channel of ones after the output, for 1x1 convolutions
        self.local = threading.local()
        # (N, channels of each input, spatial shape, dtype) of the last run, shared by threads
        self.layout: tuple[int, tuple[int, ...], tuple[int, ...], np.dtype[Any]] | None = None

    def _start(self) -> None:
        """A new output for this run, and its slices, when the layout is known."""
        local = self.local
        local.output, local.slices = None, None
        layout = self.layout
        if layout is None:
            return
        n, channels, spatial, dtype = layout
        shape = (n, sum(channels), *spatial)
        output = None if self.spare is None else self.spare.array(shape, dtype)
        if output is None:
            output = np.empty(shape, dtype)
        bounds = np.cumsum((0, *channels)).tolist()
        local.output = output
        local.slices = [output[:, a:b] for a, b in itertools.pairwise(bounds)]

    def producer(
        self, slot: int, conv: PreparedConv | SiblingConv, first: bool
    ) -> Callable[..., Any]:
        def produce(x: Any, residual: Any = None) -> Any:  # a prepared step's arguments
            if first:
                self._start()
            slices = getattr(self.local, "slices", None)
            if slices is None:
                return conv(x, residual)
            place = slices[slot]
            result = conv(x, residual, out=place)
            if result is place:
                return place
            if (
                isinstance(result, np.ndarray)
                and result.shape == place.shape
                and result.dtype == place.dtype
            ):
                np.copyto(place, result)  # written elsewhere (the nodes as written): moved in
                return place
            self.local.slices = None  # another shape or type: the Concat runs as written
            return result

        return produce

    def joiner(self, concat: Callable[..., Any]) -> Callable[..., Any]:
        def join(*inputs: Any, **attributes: Any) -> Any:
            local = self.local
            slices, output = getattr(local, "slices", None), getattr(local, "output", None)
            local.slices = local.output = None  # the run's output is the Concat's alone now
            if slices is not None and all(a is b for a, b in zip(inputs, slices, strict=True)):
                return output
            result = concat(*inputs, **attributes)
            self.layout = _layout_of(inputs, result)
            return result

        return join


def _layout_of(
    inputs: tuple[Any, ...], result: Any
) -> tuple[int, tuple[int, ...], tuple[int, ...], np.dtype[Any]] | None:
    """The next run's output layout, when the inputs are arrays of one type joined along
    axis 1 (an error or anything else: None, the Concat keeps running as written)."""
    if not isinstance(result, np.ndarray) or result.ndim < 2:
        return None
    arrays = [a for a in inputs if isinstance(a, np.ndarray) and a.dtype == result.dtype]
    if len(arrays) != len(inputs):
        return None
    rest = (result.shape[0], *result.shape[2:])
    if any(a.ndim != result.ndim or (a.shape[0], *a.shape[2:]) != rest for a in arrays):
        return None
    return result.shape[0], tuple(a.shape[1] for a in arrays), result.shape[2:], result.dtype
