"""Storing identical constants once: content keys of constant arrays.

Two constants of one model with the same element type, shape and bytes become one tensor.
Small arrays are keyed by their bytes, larger ones by a digest of their bytes; hashing every
byte of gigabytes of weights would cost more than the rest of the build, so the largest are
told apart by a sample of their values and compared whole only when the samples agree.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType

__all__ = ["ConstantKeys", "content_key"]

_SAMPLED_ABOVE = 1 << 20  # bytes; larger constants are told apart by a sample of their values
_SAMPLE_WINDOWS = 64
_SAMPLE_WINDOW = 16  # values


def _bytes_of(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8)


def _sample_digest(array: np.ndarray) -> bytes:
    """A digest of the values at both ends of ``array`` and of evenly spaced windows between.

    Only the sampled values are read (``flat`` indexing), whatever the array's layout.
    """
    size = array.size
    step = max(size // _SAMPLE_WINDOWS, 1)
    starts = np.arange(0, size, step)[:_SAMPLE_WINDOWS]
    picks = np.concatenate(
        [
            np.arange(min(size, 1024)),
            np.arange(max(size - 1024, 0), size),
            (starts[:, None] + np.arange(_SAMPLE_WINDOW)).reshape(-1).clip(0, size - 1),
        ]
    )
    return hashlib.blake2b(array.flat[picks].tobytes(), digest_size=20).digest()


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and bool(np.array_equal(_bytes_of(a), _bytes_of(b)))


def content_key(array: np.ndarray, elem: ElementType) -> tuple[Any, ...]:
    """A key equal for arrays of identical type, shape and bytes."""
    if array.dtype.kind == "O":
        return (elem, array.shape, tuple(array.reshape(-1).tolist()))
    contiguous = np.ascontiguousarray(array)
    if contiguous.nbytes <= 64:
        return (elem, array.shape, contiguous.tobytes())
    digest = hashlib.blake2b(contiguous.data.cast("B"), digest_size=20).digest()
    return (elem, array.shape, digest)


class ConstantKeys:
    """The keys of one model's constants: equal keys mean one stored tensor."""

    def __init__(self) -> None:
        self._large: dict[tuple[Any, ...], list[np.ndarray]] = {}  # sample key -> arrays

    def key(self, array: np.ndarray, elem: ElementType) -> tuple[Any, ...]:
        """A key equal for arrays of identical element type, shape and bytes."""
        nbytes = array.nbytes
        if nbytes <= 64 and array.dtype.kind != "O":
            # Most constants are small: their bytes (tobytes is C order whatever the layout)
            # are the key, as content_key makes it.
            return (elem, array.shape, array.tobytes())
        if nbytes > _SAMPLED_ABOVE and array.dtype.kind != "O":
            return self._large_key(array, elem)
        return content_key(array, elem)

    def _large_key(self, array: np.ndarray, elem: ElementType) -> tuple[Any, ...]:
        """The key of a large array: its sample, and which of the arrays with that sample."""
        sample = (elem, array.shape, _sample_digest(array))
        seen = self._large.setdefault(sample, [])
        for index, other in enumerate(seen):
            if _same_bits(other, array):
                return (*sample, index)
        seen.append(array)
        return (*sample, len(seen) - 1)
