"""Working arrays reused from one convolution to the next, one set per thread; and a Relu
in place that runs numpy's fast loop.

A prepared convolution needs a few large temporaries per call (the padded image, the product
of the weights with it). Freshly allocated, arrays of megabytes come from the operating
system zeroed page by page, and those page faults cost as much as the arithmetic
(measured: 1.1 ms instead of 0.26 ms for one 56x56 product). Each thread keeps one growing
block per purpose; a call takes a view of it. Nothing returned to a caller lives here.
"""

from __future__ import annotations

import math
import threading

import numpy as np

__all__ = ["clamp_at_zero", "scratch"]

_local = threading.local()
# Read-only zeros, shared by every thread, one block per element type.
_zeros: dict[np.dtype[np.generic], np.ndarray] = {}
_ZEROS_BLOCK = 1 << 18


def scratch(purpose: str, shape: tuple[int, ...], dtype: np.dtype[np.generic]) -> np.ndarray:
    """An uninitialised C-contiguous array of ``shape`` for ``purpose``, valid until this
    thread asks for the same purpose again."""
    blocks: dict[str, np.ndarray] | None = getattr(_local, "blocks", None)
    if blocks is None:
        blocks = _local.blocks = {}
    size = math.prod(shape) * dtype.itemsize
    block = blocks.get(purpose)
    if block is None or block.size < size:
        block = blocks[purpose] = np.empty(max(size, 1), np.uint8)
    return block[:size].view(dtype).reshape(shape)


def clamp_at_zero(a: np.ndarray) -> None:
    """``a = max(a, 0)`` in place, as ``np.maximum(a, 0)`` computes it, bit for bit.

    numpy 2.4 runs ``np.maximum`` against a scalar (or any zero-stride operand) through a
    loop several times slower than against an array (measured: 240 against 46 us on 800,000
    float32), with the same results, signed zeros and NaN included; so a C-contiguous
    ``a`` is clamped block by block against a block of zeros.
    """
    if not a.flags.c_contiguous:
        np.maximum(a, a.dtype.type(0), out=a)
        return
    flat = a.reshape(-1)
    zeros = _zeros.get(a.dtype)
    if zeros is None:
        zeros = np.zeros(_ZEROS_BLOCK, a.dtype)
        zeros.flags.writeable = False
        _zeros[a.dtype] = zeros
    for start in range(0, flat.size, _ZEROS_BLOCK):
        part = flat[start : start + _ZEROS_BLOCK]
        np.maximum(part, zeros[: part.size], out=part)
