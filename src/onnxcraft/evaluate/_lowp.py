"""Decoding and re-encoding low-precision floats for kernels whose outputs differ in type.

:func:`onnxcraft.evaluate.common.compute_in_float32` encodes every float output into the
type of the first low-precision input. Kernels such as BatchNormalization (running statistics
follow the type of ``mean``) or LayerNormalization (Mean and InvStdDev are float32) need
each output matched to its own reference instead; these two helpers do that.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.evaluate.common import is_lowp

__all__ = ["as_float", "encode_like"]


def as_float(array: Any) -> Any:
    """``array`` decoded to float32 if it is a low-precision representation, else as is."""
    if is_lowp(array):
        from onnxcraft.numerics import to_float32

        return to_float32(array)
    return array


def encode_like(values: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``values`` in the element type of ``reference`` (encoding low-precision types)."""
    if is_lowp(reference):
        from onnxcraft.dtypes import element_type_of
        from onnxcraft.numerics import from_float32

        encoded: np.ndarray = from_float32(values, element_type_of(reference.dtype))
        return encoded
    return np.asarray(values).astype(reference.dtype, copy=False)
