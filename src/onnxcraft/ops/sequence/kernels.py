"""Kernels for sequences and optionals: lists of arrays, and None for an empty optional."""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry, TypeAttr
from onnxcraft.ops.kernel_common import fail, normalize_axis
from onnxcraft.ops.versions import versions

__all__ = ["register"]


def _position(op: str, sequence: list[Any], position: Any, *, insert: bool = False) -> int:
    index = int(np.asarray(position).reshape(-1)[0])
    size = len(sequence)
    upper = size if insert else size - 1
    if not -size <= index <= upper:
        fail(op, f"position {index} is out of range for a sequence of {size} elements")
    return index + size if index < 0 else index


def sequence_construct(*inputs: Any) -> list[Any]:
    return list(inputs)


def sequence_empty(*, dtype: int = 1) -> list[Any]:
    return []


def sequence_at(sequence: list[Any], position: Any) -> Any:
    return sequence[_position("SequenceAt", sequence, position)]


def sequence_insert(sequence: list[Any], tensor: Any, position: Any = None) -> list[Any]:
    result = list(sequence)
    if position is None:
        result.append(tensor)
    else:
        result.insert(_position("SequenceInsert", sequence, position, insert=True), tensor)
    return result


def sequence_erase(sequence: list[Any], position: Any = None) -> list[Any]:
    result = list(sequence)
    if not result:
        fail("SequenceErase", "cannot erase from an empty sequence")
    del result[-1 if position is None else _position("SequenceErase", sequence, position)]
    return result


def sequence_length(sequence: list[Any]) -> np.ndarray:
    return np.array(len(sequence), dtype=np.int64)


def split_to_sequence(x: Any, split: Any = None, *, axis: int = 0, keepdims: int = 1) -> list[Any]:
    x = np.asarray(x)
    a = normalize_axis(axis, x.ndim, op="SplitToSequence")
    if split is None:
        parts = np.split(x, x.shape[a], axis=a) if x.shape[a] else []
        return [np.squeeze(p, axis=a) for p in parts] if not keepdims else list(parts)
    sizes = np.asarray(split)
    if sizes.ndim == 0:
        step = int(sizes)
        bounds = list(range(step, x.shape[a], step))
    else:
        if int(sizes.sum()) != x.shape[a]:
            fail("SplitToSequence", f"split {sizes.tolist()} does not add up to {x.shape[a]}")
        bounds = np.cumsum(sizes)[:-1].tolist()
    return list(np.split(x, bounds, axis=a))


def concat_from_sequence(sequence: list[Any], *, axis: int, new_axis: int = 0) -> np.ndarray:
    if not sequence:
        fail("ConcatFromSequence", "the sequence is empty")
    arrays = [np.asarray(s) for s in sequence]
    if new_axis:
        return np.stack(
            arrays, axis=normalize_axis(axis, arrays[0].ndim + 1, op="ConcatFromSequence")
        )
    return np.concatenate(
        arrays, axis=normalize_axis(axis, arrays[0].ndim, op="ConcatFromSequence")
    )


def optional(value: Any = None, *, type: TypeAttr | None = None) -> Any:
    return value


def optional_has_element(value: Any = None) -> np.ndarray:
    return np.array(value is not None)


def optional_get_element(value: Any) -> Any:
    if value is None:
        fail("OptionalGetElement", "the optional is empty")
    return value


def register(kernels: KernelRegistry) -> None:
    kernels.add("SequenceConstruct", sequence_construct, since=versions("SequenceConstruct"))
    kernels.add("SequenceEmpty", sequence_empty, since=versions("SequenceEmpty"))
    kernels.add("SequenceAt", sequence_at, since=versions("SequenceAt"))
    kernels.add("SequenceInsert", sequence_insert, since=versions("SequenceInsert"))
    kernels.add("SequenceErase", sequence_erase, since=versions("SequenceErase"))
    kernels.add("SequenceLength", sequence_length, since=versions("SequenceLength"))
    kernels.add("SplitToSequence", split_to_sequence, since=versions("SplitToSequence"))
    kernels.add("ConcatFromSequence", concat_from_sequence, since=versions("ConcatFromSequence"))
    kernels.add("Optional", optional, since=versions("Optional"))
    kernels.add("OptionalHasElement", optional_has_element, since=versions("OptionalHasElement"))
    kernels.add("OptionalGetElement", optional_get_element, since=versions("OptionalGetElement"))
