"""A Concat followed by a channel shuffle copies its inputs straight into the shuffled
order (``fuse=True``): ShuffleNet's units.

ShuffleNet interleaves the channels of its two branches: ``Concat(a, b, axis=1)``, a
Reshape to (N, g, C/g, spatial...), a Transpose swapping axes 1 and 2, and a Reshape back
to (N, C, spatial...). As written, every value is copied twice: by the Concat, then by the
last Reshape (of the transposed view). When the Concat has g inputs of C/g channels each,
channel i of input k lands at channel i * g + k of the result, so each input is copied
once, into a strided view of one new array: the same values, bit for bit.

The fast way is taken at run time only when the inputs are arrays of one type and shape
and the two shapes (constants, every entry positive) are exactly those of a shuffle of
them; anything else runs the four kernels as written, one after the other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from onnxcraft.evaluate.step_links import sole_readers, with_replacements
from onnxcraft.ops.kernel_api import Step

__all__ = ["shuffle_concats"]


def shuffle_concats(
    steps: list[Step],
    constants: dict[str, Any],
    fixed: set[str],
    kept: set[str],
    readers: Counter[str],
    is_library_step: Callable[[Step, str], bool],
) -> list[Step]:
    """``steps`` with each Concat -> Reshape -> Transpose -> Reshape shuffle made one step.

    ``fixed`` are the constants no feed can replace, ``kept`` the names the graph must
    produce (the Concat's, first Reshape's and Transpose's outputs must not be among them),
    ``readers`` how many steps read each name (subgraphs' reads included).
    ``is_library_step(step, op_type)`` says whether a step runs onnxcraft's own kernel of a
    standard operator (a caller's kernel might do something else).
    """
    sole = sole_readers(steps, readers, kept)
    replaced: dict[int, Step] = {}
    dropped: set[int] = set()
    for index, concat in enumerate(steps):
        chain = _shuffle_after(index, steps, sole, fixed, is_library_step)
        if chain is None or dropped.intersection(chain) or index in dropped:
            continue
        first, swap, last = (steps[i] for i in chain)
        shuffle = _Shuffle(
            groups=len(concat.inputs),
            split_shape=_shape(constants[first.inputs[1]]),
            joined_shape=_shape(constants[last.inputs[1]]),
        )
        if not shuffle.plausible(swap.attributes.get("perm")):
            continue
        as_written = _AsWritten(concat, first, swap, last, constants)
        replaced[index] = replace(
            concat, fn=_shuffled(shuffle, as_written), outputs=[last.outputs[0]]
        )
        dropped.update(chain)
    return with_replacements(steps, replaced, dropped)


def _shuffle_after(
    index: int,
    steps: list[Step],
    sole: dict[str, int],
    fixed: set[str],
    is_library_step: Callable[[Step, str], bool],
) -> tuple[int, int, int] | None:
    """The indices of the Reshape, Transpose and Reshape after Concat ``index``, each alone
    reading the one before, or None."""
    concat = steps[index]
    if not is_library_step(concat, "Concat") or len(concat.outputs) != 1 or concat.context:
        return None
    if len(concat.inputs) < 2 or not all(concat.inputs):
        return None
    chain: list[int] = []
    value = concat.outputs[0]
    for op_type in ("Reshape", "Transpose", "Reshape"):
        reader = sole.get(value)
        if reader is None:
            return None
        step = steps[reader]
        if not is_library_step(step, op_type) or len(step.outputs) != 1 or step.context:
            return None
        if step.inputs[0] != value:
            return None
        if op_type == "Reshape" and (len(step.inputs) != 2 or step.inputs[1] not in fixed):
            return None
        chain.append(reader)
        value = step.outputs[0]
    return chain[0], chain[1], chain[2]


def _shape(value: Any) -> tuple[int, ...] | None:
    if not isinstance(value, np.ndarray) or value.ndim != 1 or value.dtype.kind != "i":
        return None
    return tuple(int(v) for v in value)


@dataclass(frozen=True)
class _Shuffle:
    groups: int  # the Concat's inputs
    split_shape: tuple[int, ...] | None  # (N, groups, C / groups, spatial...)
    joined_shape: tuple[int, ...] | None  # (N, C, spatial...)

    def plausible(self, perm: Any) -> bool:
        """Whether the constants describe a shuffle of ``groups`` inputs at all."""
        split, joined = self.split_shape, self.joined_shape
        if split is None or joined is None or len(split) != len(joined) + 1:
            return False
        if len(joined) < 2 or min(split) <= 0 or min(joined) <= 0:
            return False
        swap = [0, 2, 1, *range(3, len(split))]
        return split[1] == self.groups and perm is not None and list(perm) == swap

    def fits(self, inputs: tuple[Any, ...], axis: Any) -> bool:
        """Whether ``inputs`` concatenated on ``axis`` are what the shapes shuffle."""
        first = inputs[0]
        if not isinstance(first, np.ndarray) or first.ndim < 2:
            return False
        if not isinstance(axis, int) or axis not in (1, 1 - first.ndim):
            return False
        for x in inputs[1:]:
            if not isinstance(x, np.ndarray) or x.dtype != first.dtype or x.shape != first.shape:
                return False
        n, channels, *spatial = first.shape
        split, joined = self.split_shape, self.joined_shape
        return split == (n, self.groups, channels, *spatial) and joined == (
            n,
            self.groups * channels,
            *spatial,
        )


@dataclass(frozen=True)
class _AsWritten:
    """The four steps as written, for inputs the shuffle does not fit."""

    concat: Step
    split: Step
    swap: Step
    join: Step
    constants: dict[str, Any]

    def __call__(self, inputs: tuple[Any, ...], concat_attributes: dict[str, Any]) -> Any:
        assert self.concat.fn and self.split.fn and self.swap.fn and self.join.fn
        value = self.concat.fn(*inputs, **concat_attributes)
        value = self.split.fn(value, self.constants[self.split.inputs[1]], **self.split.attributes)
        value = self.swap.fn(value, **self.swap.attributes)
        return self.join.fn(value, self.constants[self.join.inputs[1]], **self.join.attributes)


def _shuffled(shuffle: _Shuffle, as_written: _AsWritten) -> Callable[..., Any]:
    def run(*inputs: Any, **attributes: Any) -> Any:
        if not shuffle.fits(inputs, attributes.get("axis", 1)):
            return as_written(inputs, attributes)
        n, channels, *spatial = inputs[0].shape
        out = np.empty((n, channels, shuffle.groups, *spatial), inputs[0].dtype)
        for group, x in enumerate(inputs):
            out[:, :, group] = x
        return out.reshape(n, channels * shuffle.groups, *spatial)

    return run
