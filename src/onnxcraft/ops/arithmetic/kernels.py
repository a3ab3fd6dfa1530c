"""Kernels for binary and variadic arithmetic: Add, Sub, Mul, Div, Pow, Mod, Max, Min, Sum, Mean.

Integer arithmetic wraps as in C, integer Div truncates toward zero, and the low-precision float
types are computed in float32 and rounded back. Opset < 7 versions take the old ``broadcast`` /
``axis`` attributes: B is matched against a contiguous run of A's axes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from onnxcraft.ops.arithmetic.shapes import (
    is_single_element,
    legacy_broadcast_problem,
    legacy_broadcast_start,
)
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail
from onnxcraft.ops.lowp import as_float, encode_like
from onnxcraft.ops.run_guard import check_broadcast
from onnxcraft.ops.versions import versions, versions_between

__all__ = ["register", "legacy_broadcast"]


def legacy_broadcast(
    op: str, a: np.ndarray, b: np.ndarray, broadcast: int, axis: int | None
) -> np.ndarray:
    """B reshaped so that numpy broadcasts it as the opset < 7 rule does (ops/arithmetic/shapes)."""
    problem = legacy_broadcast_problem(a.shape, b.shape, broadcast, axis)
    if problem is not None:
        fail(op, problem)
    if b.shape == a.shape:
        return b
    if is_single_element(a.shape, b.shape):
        return b.reshape(())
    start = legacy_broadcast_start(a.ndim, b.ndim, axis)
    return b.reshape((1,) * start + b.shape + (1,) * (a.ndim - start - b.ndim))


def _int_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        quotient = np.floor_divide(a, b)
        remainder = np.remainder(a, b)
        # numpy floors; ONNX (like C) truncates toward zero.
        adjust = (remainder != 0) & ((a < 0) != (b < 0))
        return np.asarray(np.where(adjust, quotient + 1, quotient).astype(np.result_type(a, b)))


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu":
        return _int_div(a, b)
    with np.errstate(all="ignore"):
        return np.asarray(np.divide(a, b)).astype(a.dtype, copy=False)


def _pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if a.dtype.kind in "iu":
            result = np.power(a.astype(np.float64), b.astype(np.float64))
            return np.asarray(result).astype(a.dtype)
        return np.asarray(np.power(a, b.astype(a.dtype, copy=False))).astype(a.dtype, copy=False)


def _binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], name: str) -> Callable[..., Any]:
    @compute_in_float32
    def kernel(
        a: Any, b: Any, *, broadcast: int = 0, axis: int | None = None, consumed_inputs: Any = None
    ) -> np.ndarray:
        a, b = np.asarray(a), np.asarray(b)
        check_broadcast(name, a, b)
        with np.errstate(all="ignore"):
            return np.asarray(fn(a, b)).astype(np.result_type(a, b), copy=False)

    def legacy(
        a: Any, b: Any, *, broadcast: int = 0, axis: int | None = None, consumed_inputs: Any = None
    ) -> np.ndarray:
        a, b = np.asarray(a), np.asarray(b)
        return kernel(a, legacy_broadcast(name, a, b, broadcast, axis))

    kernel.legacy = legacy  # type: ignore[attr-defined]
    kernel.__name__ = name.lower()
    return kernel


_add = _binary(np.add, "Add")
_sub = _binary(np.subtract, "Sub")
_mul = _binary(np.multiply, "Mul")
_divide = _binary(_div, "Div")


def pow_(base: Any, exponent: Any) -> np.ndarray:
    base, exponent = np.asarray(base), np.asarray(exponent)
    check_broadcast("Pow", base, exponent, dtype=base.dtype)
    # Z has X's type whatever Y's is: decode both, encode the result like X (not like the
    # first low-precision input, as compute_in_float32 would).
    return encode_like(_pow(as_float(base), as_float(exponent)), base)


def pow_1(base: Any, exponent: Any, *, broadcast: int = 0, axis: int | None = None) -> np.ndarray:
    """Pow-1: the legacy broadcasting rule, B into A."""
    base, exponent = np.asarray(base), np.asarray(exponent)
    return pow_(base, legacy_broadcast("Pow", base, exponent, broadcast, axis))


@compute_in_float32
def mod(a: Any, b: Any, *, fmod: int = 0) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    check_broadcast("Mod", a, b, dtype=a.dtype)
    # fmod=0 on floats (allowed from Mod-28) is Python's modulo: the sign of the divisor.
    with np.errstate(all="ignore"):
        result = np.fmod(a, b) if fmod else np.mod(a, b)
    return np.asarray(result).astype(a.dtype, copy=False)


def _variadic(fn: Callable[..., np.ndarray], name: str) -> Callable[..., Any]:
    @compute_in_float32
    def kernel(*inputs: Any, consumed_inputs: Any = None) -> np.ndarray:
        if not inputs:
            fail(name, "needs at least one input")
        arrays = [np.asarray(x) for x in inputs]
        check_broadcast(name, *arrays, dtype=arrays[0].dtype)
        with np.errstate(all="ignore"):
            result = arrays[0]
            for other in arrays[1:]:
                result = fn(result, other)
            if name == "Mean":
                result = result / len(arrays)
        return np.asarray(result).astype(arrays[0].dtype, copy=False)

    kernel.__name__ = name.lower()
    return kernel


def register(kernels: KernelRegistry) -> None:
    for name, kernel in (("Add", _add), ("Sub", _sub), ("Mul", _mul), ("Div", _divide)):
        legacy = kernel.legacy  # type: ignore[attr-defined]
        kernels.add(name, legacy, since=versions_between(name, 1, 6))
        kernels.add(name, kernel, since=versions_between(name, 7))
    kernels.add("Pow", pow_1, since=versions_between("Pow", 1, 6))
    kernels.add("Pow", pow_, since=versions_between("Pow", 7))
    kernels.add("Mod", mod, since=versions("Mod"))
    kernels.add("Max", _variadic(np.maximum, "Max"), since=versions("Max"))
    kernels.add("Min", _variadic(np.minimum, "Min"), since=versions("Min"))
    kernels.add("Sum", _variadic(np.add, "Sum"), since=versions("Sum"))
    kernels.add("Mean", _variadic(np.add, "Mean"), since=versions("Mean"))
