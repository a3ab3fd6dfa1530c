"""Result arrays of the prepared convolutions, used again once nothing refers to them.

A convolution's output is a new array every run, and at batch 8 ResNet-50's are 6 to 25 MB
each. Memory that large, freed by one step and asked for again by the next, comes back
from the operating system in fresh pages (glibc returns part of its heap's top, numpy's
allocator adds nothing of its own at that size): about 2,400 page faults a run of ResNet-50
at batch 8, each zeroing its page before the convolution writes over it.

:class:`RecycledArrays` keeps the arrays it hands out, by shape and type, and hands one out
again only when its sole remaining reference is its own: the run has dropped the value
(no later step reads it), no caller holds it or a view of it (a view refers to its base),
so nothing can see it change. A returned output the caller keeps is never reused. The
count of references is compared with that of an array only the list holds, measured once
through the same function (the interpreter's own count of temporaries then cancels out).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

__all__ = ["RecycledArrays"]

# Shapes kept at most: a plan run on many batch sizes starts afresh instead of growing.
_SHAPES = 64


def _references(arrays: list[np.ndarray], index: int) -> int:
    return sys.getrefcount(arrays[index])


_ALONE = _references([np.empty(0)], 0)  # an array that only its list refers to


class RecycledArrays:
    """New arrays for results, or earlier ones that nothing refers to any more."""

    def __init__(self) -> None:
        self.arrays: dict[tuple[tuple[int, ...], np.dtype[Any]], list[np.ndarray]] = {}

    def empty(self, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
        """An uninitialised C-contiguous array of ``shape`` and ``dtype``, which no other
        object refers to."""
        key = (shape, dtype)
        arrays = self.arrays.get(key)
        if arrays is None:
            if len(self.arrays) >= _SHAPES:
                self.arrays.clear()  # arrays still in use live on through their other owners
            arrays = self.arrays[key] = []
        for index in range(len(arrays)):
            if _references(arrays, index) <= _ALONE:
                return arrays[index]
        array = np.empty(shape, dtype)
        arrays.append(array)
        return array
