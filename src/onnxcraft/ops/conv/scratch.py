"""Working arrays reused from one convolution to the next, one set per thread.

A prepared convolution needs a few large temporaries per call (the padded image, the product
of the weights with it). Freshly allocated, arrays of megabytes come from the operating
system zeroed page by page, and those page faults cost as much as the arithmetic
(measured: 1.1 ms instead of 0.26 ms for one 56x56 product). Each thread keeps one growing
block per purpose; a call takes a view of it. Nothing returned to a caller lives here.

The blocks belong to a :class:`WorkingArrays` that the evaluator's prepared plan holds (one
for all its convolutions), so they are freed with the plan, not kept for the process.
"""

from __future__ import annotations

import math
import threading

import numpy as np

__all__ = ["WorkingArrays"]


# At most this many bytes per thread in arrays of their own kind (:meth:`take_kind`): one set
# per input shape, so a plan fed many shapes would otherwise keep one set for each.
KIND_BYTES = 64 << 20


class WorkingArrays(threading.local):
    """Blocks of memory by purpose, one set per thread that uses them."""

    def __init__(self) -> None:
        self.blocks: dict[str, np.ndarray] = {}
        self.kind_bytes = 0  # in the blocks of :meth:`take_kind`

    def take_kind(
        self, name: str, shape: tuple[int, ...], dtype: np.dtype[np.generic]
    ) -> tuple[np.ndarray, bool] | None:
        """The array of ``shape`` named ``name`` (whose size never changes) and whether it was
        made now (uninitialised then; else as the last call left it), or None when making it
        would pass ``KIND_BYTES`` in this thread (the caller takes the shared arrays)."""
        made = name not in self.blocks
        if made:
            size = math.prod(shape) * dtype.itemsize
            if self.kind_bytes + size > KIND_BYTES:
                return None
            self.kind_bytes += size
        return self.take(name, shape, dtype), made

    def take(self, purpose: str, shape: tuple[int, ...], dtype: np.dtype[np.generic]) -> np.ndarray:
        """An uninitialised C-contiguous array of ``shape`` for ``purpose``, valid until this
        thread asks for the same purpose again."""
        size = math.prod(shape) * dtype.itemsize
        block = self.blocks.get(purpose)
        if block is None or block.size < size:
            block = self.blocks[purpose] = np.empty(max(size, 1), np.uint8)
        return block[:size].view(dtype).reshape(shape)
