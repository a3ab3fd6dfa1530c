"""Concats that grow one list of inputs share a buffer (``fuse=True``): DenseNet's blocks.

In a DenseNet block every layer concatenates all the feature maps before it:
``Concat(f0, f1)``, then ``Concat(f0, f1, f2)`` ... Each Concat as written copies all of
its inputs, so a block of L layers copies the first map L times. Here the Concats of such a
chain (each one's inputs the first inputs of the next, same axis) write into one buffer:
a Concat copies only the inputs the one before it had not, and returns the filled part of
the buffer (a view). Later Concats write only beyond that part, so the values a view shows
never change; they are the values ``np.concatenate`` gives, bit for bit.

A Concat recognizes the inputs already in the buffer by identity (the same array objects
the previous Concat of the chain received, in this thread); anything else (another run,
another thread, inputs of other types or shapes) starts a new buffer or runs the kernel as
written. The buffer's size along the axis is learned from the previous run (the first run
grows it by doubling). The last Concat of a chain lets go of the inputs it kept.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from onnxcraft.evaluate.step_links import with_replacements
from onnxcraft.ops.kernel_api import Step

__all__ = ["share_concat_buffers"]


def share_concat_buffers(
    steps: list[Step],
    kept: set[str],
    is_library_step: Callable[[Step, str], bool],
) -> list[Step]:
    """``steps`` with the Concats of each chain sharing one buffer.

    ``kept`` are names that must be the graph's own arrays (its outputs): a chain does not
    end in one of them. ``is_library_step(step, op_type)`` says whether a step runs
    onnxcraft's own kernel of a standard operator.
    """
    concats = [
        index
        for index, step in enumerate(steps)
        if is_library_step(step, "Concat")
        and len(step.outputs) == 1
        and step.outputs[0] not in kept
        and all(step.inputs)
    ]
    successor: dict[int, int] = {}
    for position, index in enumerate(concats):
        inputs = steps[index].inputs
        axis = steps[index].attributes.get("axis")
        for later in concats[position + 1 :]:
            candidate = steps[later]
            longer = candidate.inputs[: len(inputs)] == inputs and len(candidate.inputs) > len(
                inputs
            )
            if longer and candidate.attributes.get("axis") == axis:
                successor[index] = later
                break
    has_predecessor = set(successor.values())
    replaced: dict[int, Step] = {}
    for start in concats:
        if start in has_predecessor or start not in successor:
            continue
        chain = [start]
        while chain[-1] in successor:
            chain.append(successor[chain[-1]])
        state = _ChainState()
        for number, index in enumerate(chain):
            step = steps[index]
            assert step.fn is not None
            kernel = _into_buffer(step.fn, state, last=number == len(chain) - 1)
            replaced[index] = replace(step, fn=kernel)
    return with_replacements(steps, replaced)


class _ChainState(threading.local):
    """One thread's buffer of a chain and the arrays it holds (set per thread)."""

    def __init__(self) -> None:
        self.learned = 0  # the largest extent a run of the chain needed
        self.reset()

    def reset(self) -> None:
        self.buffer: np.ndarray | None = None
        self.written: list[Any] = []  # the inputs copied into the buffer, in order
        self.filled = 0  # how far along the axis the buffer holds them
        self.axis = (0, 0)  # the attribute as given, and as an index


def _into_buffer(
    kernel: Callable[..., Any], state: _ChainState, *, last: bool
) -> Callable[..., Any]:
    def run(*inputs: Any, axis: int = 1) -> Any:
        try:
            extended = _extend(state, inputs, axis)
            if extended is not None:
                return extended
            index = _fitting_axis(inputs, axis)
            if index is None:
                state.reset()
                return kernel(*inputs, axis=axis)
            state.reset()
            state.axis = (axis, index)
            return _append(state, inputs, 0)
        finally:
            if last:  # the chain is complete: keep no input alive
                state.reset()

    return run


def _extend(state: _ChainState, inputs: tuple[Any, ...], axis: int) -> np.ndarray | None:
    """The Concat of ``inputs`` when the buffer holds exactly their first ones (the same
    arrays as the previous Concat's, all of them) and the others fit it; else None. The part
    of the buffer views already show is never written again."""
    buffer, written = state.buffer, state.written
    held = len(written)
    if buffer is None or axis != state.axis[0] or not 0 < held < len(inputs):
        return None
    if not all(map(operator.is_, written, inputs)):
        return None
    index = state.axis[1]
    for x in inputs[held:]:
        if not isinstance(x, np.ndarray) or not _same_layout(buffer, x, index):
            return None
    return _append(state, inputs, held)


def _append(state: _ChainState, inputs: tuple[Any, ...], held: int) -> np.ndarray:
    """Copy ``inputs[held:]`` after the ``held`` ones the buffer has (a new buffer when
    ``held`` is 0 or it is too small) and return the filled part."""
    index = state.axis[1]
    filled = state.filled if held else 0
    need = filled + sum(x.shape[index] for x in inputs[held:])
    buffer = state.buffer if held else None
    if buffer is None or buffer.shape[index] < need:
        shape = list(inputs[0].shape)
        shape[index] = max(need, state.learned if buffer is None else 2 * buffer.shape[index])
        grown = np.empty(shape, inputs[0].dtype)
        if buffer is not None and filled:
            _region(grown, index, 0, filled)[...] = _region(buffer, index, 0, filled)
        buffer = grown
    offset = filled
    for x in inputs[held:]:
        size = x.shape[index]
        _region(buffer, index, offset, offset + size)[...] = x
        offset += size
    state.buffer, state.written, state.filled = buffer, list(inputs), need
    state.learned = max(state.learned, need)
    return _region(buffer, index, 0, need)


def _fitting_axis(inputs: tuple[Any, ...], axis: int) -> int | None:
    """The axis as an index when every input is an array of one dtype and one shape but
    along it (what np.concatenate takes); None otherwise (the kernel decides)."""
    if not inputs or not all(isinstance(x, np.ndarray) for x in inputs):
        return None
    first = inputs[0]
    rank: int = first.ndim
    if rank == 0 or not -rank <= axis < rank:
        return None
    index = int(axis) % rank
    for x in inputs[1:]:
        if not _same_layout(first, x, index):
            return None
    return index


def _same_layout(buffer: np.ndarray, x: np.ndarray, axis: int) -> bool:
    return (
        buffer.dtype == x.dtype
        and buffer.ndim == x.ndim
        and buffer.shape[:axis] == x.shape[:axis]
        and buffer.shape[axis + 1 :] == x.shape[axis + 1 :]
    )


def _region(array: np.ndarray, axis: int, start: int, stop: int) -> np.ndarray:
    index: list[slice] = [slice(None)] * array.ndim
    index[axis] = slice(start, stop)
    return array[tuple(index)]
