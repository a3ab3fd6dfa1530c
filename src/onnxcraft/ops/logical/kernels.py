"""Kernels for comparison, logic, bitwise operators, IsNaN/IsInf and Where."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from onnxcraft.numerics import to_float32
from onnxcraft.ops.arithmetic.kernels import legacy_broadcast
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import fail, is_lowp
from onnxcraft.ops.run_guard import check_broadcast
from onnxcraft.ops.versions import versions, versions_between

__all__ = ["register"]


def _decoded(x: Any) -> np.ndarray:
    x = np.asarray(x)
    if is_lowp(x):
        return np.asarray(to_float32(x))
    return np.asarray(x)


def _compare(fn: Callable[[Any, Any], Any], name: str) -> Callable[..., Any]:
    def kernel(a: Any, b: Any) -> np.ndarray:
        a, b = _decoded(a), _decoded(b)
        check_broadcast(name, a, b, dtype=bool)
        return np.asarray(fn(a, b), dtype=bool)

    def legacy(a: Any, b: Any, *, broadcast: int = 0, axis: int | None = None) -> np.ndarray:
        a, b = _decoded(a), _decoded(b)
        return kernel(a, legacy_broadcast(name, a, b, broadcast, axis))

    kernel.__name__ = name.lower()
    legacy.__name__ = f"{name.lower()}_legacy"
    kernel.legacy = legacy  # type: ignore[attr-defined]
    return kernel


def _not(x: Any) -> np.ndarray:
    return np.asarray(np.logical_not(np.asarray(x)))


def _bitwise_not(x: Any) -> np.ndarray:
    return np.asarray(np.invert(np.asarray(x)))


def bit_shift(x: Any, y: Any, *, direction: str) -> np.ndarray:
    x, y = np.asarray(x), np.asarray(y)
    check_broadcast("BitShift", x, y, dtype=x.dtype)
    bits = x.dtype.itemsize * 8
    y = y.astype(x.dtype)
    overflow = y >= bits  # numpy leaves shifts by >= the width undefined; ONNX gives 0
    safe = np.where(overflow, 0, y).astype(x.dtype)
    if direction == "LEFT":
        result = np.left_shift(x, safe)
    elif direction == "RIGHT":
        result = np.right_shift(x, safe)
    else:
        fail("BitShift", f"direction must be 'LEFT' or 'RIGHT', got {direction!r}")
    # Shifting by the width or more leaves no bits: 0, or the sign for a right shift of a
    # negative signed value.
    fill = np.where((x < 0) & (direction == "RIGHT"), -1, 0) if x.dtype.kind == "i" else 0
    return np.where(overflow, np.asarray(fill).astype(x.dtype), result).astype(x.dtype)


def _bitwise(fn: Callable[[Any, Any], Any], name: str) -> Callable[..., Any]:
    def kernel(a: Any, b: Any) -> np.ndarray:
        a, b = np.asarray(a), np.asarray(b)
        check_broadcast(name, a, b)
        return np.asarray(fn(a, b)).astype(np.result_type(a, b), copy=False)

    return kernel


def is_nan(x: Any) -> np.ndarray:
    return np.asarray(np.isnan(_decoded(x)))


def is_inf(x: Any, *, detect_negative: int = 1, detect_positive: int = 1) -> np.ndarray:
    x = _decoded(x)
    result = np.zeros(x.shape, dtype=bool)
    if detect_positive:
        result |= np.isposinf(x)
    if detect_negative:
        result |= np.isneginf(x)
    return result


def where(condition: Any, x: Any, y: Any) -> np.ndarray:
    x, y, condition = np.asarray(x), np.asarray(y), np.asarray(condition, dtype=bool)
    check_broadcast("Where", condition, x, y, dtype=x.dtype)
    return np.asarray(np.where(condition, x, y)).astype(x.dtype, copy=False)


def _equal(a: Any, b: Any) -> Any:
    return a == b


def register(kernels: KernelRegistry) -> None:
    comparisons: dict[str, Callable[[Any, Any], Any]] = {
        "Equal": _equal,
        "Less": np.less,
        "Greater": np.greater,
        "LessOrEqual": np.less_equal,
        "GreaterOrEqual": np.greater_equal,
        "And": np.logical_and,
        "Or": np.logical_or,
        "Xor": np.logical_xor,
    }
    for name, fn in comparisons.items():
        kernel = _compare(fn, name)
        # Versions before 7 take the legacy broadcast/axis attributes (B into A).
        kernels.add(name, kernel.legacy, since=versions_between(name, 1, 6))  # type: ignore[attr-defined]
        kernels.add(name, kernel, since=versions_between(name, 7))
    kernels.add("Not", _not, since=versions("Not"))
    kernels.add("BitwiseNot", _bitwise_not, since=versions("BitwiseNot"))
    kernels.add("BitwiseAnd", _bitwise(np.bitwise_and, "BitwiseAnd"), since=versions("BitwiseAnd"))
    kernels.add("BitwiseOr", _bitwise(np.bitwise_or, "BitwiseOr"), since=versions("BitwiseOr"))
    kernels.add("BitwiseXor", _bitwise(np.bitwise_xor, "BitwiseXor"), since=versions("BitwiseXor"))
    kernels.add("BitShift", bit_shift, since=versions("BitShift"))
    kernels.add("IsNaN", is_nan, since=versions("IsNaN"))
    kernels.add("IsInf", is_inf, since=versions("IsInf"))
    kernels.add("Where", where, since=versions_between("Where", 9))
