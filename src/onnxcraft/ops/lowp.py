"""Decoding and re-encoding low-precision floats for kernels whose outputs differ in type.

:func:`onnxcraft.ops.kernel_common.compute_in_float32` encodes every float output into the
type of the first low-precision input. Kernels such as BatchNormalization (running statistics
follow the type of ``mean``) or LayerNormalization (Mean and InvStdDev are float32) need
each output matched to its own reference instead; :func:`as_float` and :func:`encode_like` do
that. :class:`Precision` emulates the arithmetic of one float type step by step, for kernels that
must round each intermediate result as the standard's function bodies do (attention, Softmax).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of, numpy_dtype
from onnxcraft.numerics import from_float32, to_float32
from onnxcraft.ops.kernel_common import fail, is_lowp

__all__ = ["Precision", "as_float", "encode_like", "float_values"]


def as_float(array: Any) -> Any:
    """``array`` decoded to float32 if it is a low-precision representation, else as is."""
    if is_lowp(array):
        return to_float32(array)
    return array


def encode_like(values: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``values`` in the element type of ``reference`` (encoding low-precision types)."""
    if is_lowp(reference):
        encoded: np.ndarray = from_float32(values, element_type_of(reference.dtype))
        return encoded
    return np.asarray(values).astype(reference.dtype, copy=False)


_FLOAT_TYPES = (ElementType.BFLOAT16, ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE)


def float_values(array: Any) -> np.ndarray:
    """The values of a numeric array as float32, or float64 for double (exact either way)."""
    values: np.ndarray = np.asarray(array)
    if is_lowp(values):
        return to_float32(values)
    return values.astype(np.float64 if values.dtype == np.float64 else np.float32)


def _round_to_odd(values: np.ndarray) -> np.ndarray:
    """float64 values as float32 rounded to odd (an inexact result gets its last bit set).

    Rounding that float32 to a type of at most 22 significant bits is then the correct
    rounding of the float64 value: going through float32 by nearest would round twice.
    """
    with np.errstate(over="ignore"):  # beyond float32: inf, stepped back to the largest below
        nearest = values.astype(np.float32)
    back = nearest.astype(np.float64)
    inexact = (back != values) & np.isfinite(values)
    bits = nearest.view(np.uint32)
    toward_zero = np.where(inexact & (np.abs(back) > np.abs(values)), bits - 1, bits)
    return np.where(inexact, toward_zero | 1, toward_zero).astype(np.uint32).view(np.float32)


@dataclass(frozen=True)
class Precision:
    """The arithmetic of one ONNX float type, emulated in float32 (float64 for double).

    ``round`` rounds to nearest even into the type and keeps the working dtype, so a chain of
    ``round(op(...))`` reproduces what the function body's primitive operators compute.
    """

    elem: ElementType

    @classmethod
    def of(cls, op: str, array: np.ndarray, arg: str) -> Precision:
        """The precision of ``array``'s element type, which must be a float type."""
        try:
            elem: int = element_type_of(array.dtype)
        except (TypeError, ValueError):
            fail(op, f"{arg} must be a float tensor; got numpy dtype {array.dtype}")
        return cls.named(op, elem, arg)

    @classmethod
    def named(cls, op: str, elem: int, arg: str) -> Precision:
        """The precision of ONNX element type ``elem`` (an attribute such as softmax_precision)."""
        if elem not in _FLOAT_TYPES:
            names = ", ".join(f"{t.name.lower()} ({int(t)})" for t in _FLOAT_TYPES)
            fail(op, f"{arg} must be one of {names}; got element type {elem}")
        return cls(ElementType(elem))

    @property
    def work(self) -> type[np.floating[Any]]:
        return np.float64 if self.elem == ElementType.DOUBLE else np.float32

    def round(self, values: Any) -> np.ndarray:
        """``values`` rounded to this type, held in the working dtype."""
        array: np.ndarray = np.asarray(values)
        if self.elem == ElementType.BFLOAT16:
            single = _round_to_odd(array) if array.dtype == np.float64 else array
            return to_float32(from_float32(single.astype(np.float32), ElementType.BFLOAT16))
        if self.elem == ElementType.FLOAT16:
            return array.astype(np.float16).astype(np.float32)
        return array.astype(self.work)

    def encode(self, values: Any) -> np.ndarray:
        """``values`` as an array of this element type (onnxcraft's representation)."""
        rounded = self.round(values)  # exact in float32 for bfloat16, so encoding is exact
        if self.elem == ElementType.BFLOAT16:
            return from_float32(rounded, ElementType.BFLOAT16)
        return rounded.astype(numpy_dtype(self.elem))

    def exp(self, x: np.ndarray) -> np.ndarray:
        """Exp in this type: the exact value correctly rounded (computed in float64)."""
        return self.round(np.exp(x.astype(np.float64)))

    def tanh(self, x: np.ndarray) -> np.ndarray:
        """Tanh in this type: the exact value correctly rounded (computed in float64)."""
        return self.round(np.tanh(x.astype(np.float64)))

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """MatMul of this type: products summed in the working dtype, the sum rounded once."""
        return self.round(np.matmul(a, b))

    def softmax(self, scores: np.ndarray, *, zero_masked_rows: bool) -> np.ndarray:
        """Softmax over the last axis as its function body computes it in this type.

        Each step (subtract the row maximum, exponentiate, sum, divide) is rounded to the type.
        With ``zero_masked_rows`` a row of only -inf gives zeros instead of NaN.
        """
        if scores.shape[-1] == 0:
            return np.array(scores, copy=True)
        peak = np.max(scores, axis=-1, keepdims=True)
        if zero_masked_rows:
            peak = np.where(np.isneginf(peak), 0, peak)
        with np.errstate(invalid="ignore", over="ignore"):
            exps = self.exp(self.round(scores - peak))
            total = self._sum_last(exps)
            if zero_masked_rows:
                total = np.where(total == 0, 1, total)
            return self.round(exps / total)

    def _sum_last(self, values: np.ndarray) -> np.ndarray:
        """ReduceSum over the last axis, keeping it.

        The standard leaves the accumulation precision of a reduction open. The conformance
        data adds bfloat16 values in bfloat16, one element after the other, and sums float16
        values in float32 rounded once; both are reproduced so the results agree bit for bit.
        """
        if self.elem != ElementType.BFLOAT16:
            return self.round(np.sum(values, axis=-1, keepdims=True))
        total = values[..., :1]
        for j in range(1, values.shape[-1]):  # sequential by definition: each sum is rounded
            total = self.round(total + values[..., j : j + 1])
        return total
