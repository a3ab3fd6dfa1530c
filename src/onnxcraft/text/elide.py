"""The stand-in printed for a large tensor's values: its size and a few statistics.

It starts with ``{...`` where the values would stand, so that neither onnxcraft's parser nor
onnx's reads it as values: ``{... 9408 values: min -0.82, max 0.91, mean 0.0012 ...}``.
"""

from __future__ import annotations

import numpy as np

from onnxcraft.dtypes import ElementType
from onnxcraft.numerics import to_float32

__all__ = ["ELIDED_MARK", "SMALL_TENSOR", "elided_text"]

# Tensors of at most this many elements are always printed in full (shapes, axes, scalars).
SMALL_TENSOR = 16
ELIDED_MARK = "..."


def _number(value: float) -> str:
    return f"{value:.4g}"


def elided_text(array: np.ndarray, elem: ElementType) -> str:
    """``{... N values: statistics ...}`` for the tensor ``array`` of element type ``elem``."""
    count = int(array.size)
    head = f"{{{ELIDED_MARK} {count} values"
    stats = _statistics(array, elem) if count else ""
    return f"{head}{': ' + stats if stats else ''} {ELIDED_MARK}}}"


def _statistics(array: np.ndarray, elem: ElementType) -> str:
    if elem == ElementType.STRING:
        return ""
    if elem == ElementType.BOOL:
        return f"{int(np.count_nonzero(array))} true"
    if elem in (ElementType.COMPLEX64, ElementType.COMPLEX128):
        magnitude = np.abs(array)
        return f"|min| {_number(float(magnitude.min()))}, |max| {_number(float(magnitude.max()))}"
    values = array if array.dtype.names is None else to_float32(array)
    if values.dtype.kind in "iu":
        return (
            f"min {int(values.min())}, max {int(values.max())}, "
            f"mean {_number(float(values.mean(dtype=np.float64)))}"
        )
    values = values.astype(np.float64, copy=False)
    finite = values[np.isfinite(values)]
    parts = []
    if finite.size:
        parts.append(
            f"min {_number(float(finite.min()))}, max {_number(float(finite.max()))}, "
            f"mean {_number(float(finite.mean()))}"
        )
    special = values.size - finite.size
    if special:
        parts.append(f"{special} not finite")
    return ", ".join(parts)
