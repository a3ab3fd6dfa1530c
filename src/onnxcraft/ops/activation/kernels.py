"""Kernels for activations and the softmax family."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from onnxcraft.dtypes import element_type_of
from onnxcraft.ops.clamp import at_least_zero
from onnxcraft.ops.kernel_api import Kernel, KernelRegistry
from onnxcraft.ops.kernel_common import (
    compute_in_float32,
    compute_rounded_once,
    fail,
    is_lowp,
    normalize_axis,
)
from onnxcraft.ops.lowp import Precision, float_values
from onnxcraft.ops.special import ERF_SCRATCH_ROWS, erf_into, map_blocks
from onnxcraft.ops.versions import versions, versions_between

__all__ = ["register"]


def _same(x: np.ndarray, value: Any) -> np.ndarray:
    return np.asarray(value).astype(x.dtype, copy=False)


@compute_rounded_once
def relu(x: Any, *, consumed_inputs: Any = None) -> np.ndarray:
    return at_least_zero(np.asarray(x))


@compute_rounded_once
def leaky_relu(x: Any, *, alpha: float = 0.01, consumed_inputs: Any = None) -> np.ndarray:
    x = np.asarray(x)
    return _same(x, np.where(x >= 0, x, x * alpha))


@compute_rounded_once
def elu(x: Any, *, alpha: float = 1.0, consumed_inputs: Any = None) -> np.ndarray:
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        return _same(x, np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))))


@compute_rounded_once
def selu(
    x: Any,
    *,
    alpha: float = 1.67326319217681884765625,
    gamma: float = 1.05070102214813232421875,
    consumed_inputs: Any = None,
) -> np.ndarray:
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        return _same(x, gamma * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))))


@compute_rounded_once
def celu(x: Any, *, alpha: float = 1.0) -> np.ndarray:
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        return _same(x, np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(x / alpha)))


@compute_rounded_once
def sigmoid(x: Any, *, consumed_inputs: Any = None) -> np.ndarray:
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        # exp(-|x|) never overflows; for x < 0, e / (1 + e) keeps the tiny values that
        # 1 - 1 / (1 + e) would cancel to 0.
        e = np.exp(-np.abs(x))
        return _same(x, np.where(x >= 0, 1 / (1 + e), e / (1 + e)))


@compute_rounded_once
def hard_sigmoid(
    x: Any, *, alpha: float = 0.2, beta: float = 0.5, consumed_inputs: Any = None
) -> np.ndarray:
    x = np.asarray(x)
    return _same(x, np.clip(alpha * x + beta, 0, 1))


@compute_rounded_once
def hard_swish(x: Any) -> np.ndarray:
    x = np.asarray(x)
    return _same(x, x * np.clip(x / 6 + 0.5, 0, 1))


@compute_rounded_once
def softplus(x: Any) -> np.ndarray:
    x = np.asarray(x)
    return _same(x, np.logaddexp(0, x))


@compute_rounded_once
def softsign(x: Any) -> np.ndarray:
    x = np.asarray(x)
    return _same(x, x / (1 + np.abs(x)))


@compute_rounded_once
def mish(x: Any) -> np.ndarray:
    x = np.asarray(x)
    return _same(x, x * np.tanh(np.logaddexp(0, x.astype(np.float64))))


@compute_rounded_once
def thresholded_relu(x: Any, *, alpha: float = 1.0) -> np.ndarray:
    x = np.asarray(x)
    return _same(x, np.where(x > alpha, x, 0))


@compute_rounded_once
def shrink(x: Any, *, bias: float = 0.0, lambd: float = 0.5) -> np.ndarray:
    x = np.asarray(x)
    return _same(x, np.where(x < -lambd, x + bias, np.where(x > lambd, x - bias, 0)))


@compute_rounded_once
def gelu(x: Any, *, approximate: str = "none") -> np.ndarray:
    x = np.asarray(x)
    if approximate == "tanh":
        wide = x.astype(np.float64)
        inner = math.sqrt(2 / math.pi) * (wide + 0.044715 * wide**3)
        return _same(x, 0.5 * wide * (1 + np.tanh(inner)))
    if approximate != "none":
        fail("Gelu", f"approximate must be 'none' or 'tanh', got {approximate!r}")
    return map_blocks(x, x.dtype, _gelu_block, ERF_SCRATCH_ROWS + 1)


def _gelu_block(x: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> None:
    """0.5 x (1 + erf(x / sqrt 2)) of a float64 block (halving first cannot overflow)."""
    scaled = scratch[ERF_SCRATCH_ROWS]
    np.divide(x, math.sqrt(2), out=scaled)
    erf_into(scaled, out, scratch)
    out += 1.0
    x *= 0.5
    out *= x


@compute_rounded_once
def swish(x: Any, *, alpha: float = 1.0) -> np.ndarray:
    x = np.asarray(x)
    wide = x.astype(np.float64)
    return _same(x, wide / (1 + np.exp(-alpha * wide)))


def swiglu(a: Any, b: Any, *, alpha: float = 1.0) -> np.ndarray:
    """SwiGLU-28: Swish(A) * B, two steps each rounded to the type, as its function body."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        fail(
            "SwiGLU",
            f"A and B must have one shape and element type (no broadcasting); got "
            f"{list(a.shape)} {a.dtype} and {list(b.shape)} {b.dtype}",
        )
    gate = swish(a, alpha=alpha)
    return _multiply(gate, b)


@compute_rounded_once
def _multiply(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.asarray(np.multiply(x, y))


@compute_rounded_once
def prelu(x: Any, slope: Any, *, consumed_inputs: Any = None) -> np.ndarray:
    x, slope = np.asarray(x), np.asarray(slope)
    try:
        # Unidirectional broadcasting: slope stretches to X's shape, never X to slope's.
        if np.broadcast_shapes(x.shape, slope.shape) != x.shape:
            raise ValueError("slope would change the output's shape")
        return _same(x, np.where(x < 0, x * slope, x))
    except ValueError:
        # Opset < 7: slope matches the channel axis (1) of an NCHW-like input.
        if slope.ndim == 1 and x.ndim >= 2 and slope.shape[0] == x.shape[1]:
            shaped = slope.reshape((1, -1) + (1,) * (x.ndim - 2))
            return _same(x, np.where(x < 0, x * shaped, x))
        fail("PRelu", f"slope of shape {list(slope.shape)} does not broadcast to {list(x.shape)}")


@compute_rounded_once
def clip_6(
    x: Any,
    *,
    min: float = -3.4028234663852886e38,
    max: float = 3.4028234663852886e38,
    consumed_inputs: Any = None,
) -> np.ndarray:
    x = np.asarray(x)
    return _same(x, np.clip(x, min, max))


@compute_rounded_once
def clip(x: Any, low: Any = None, high: Any = None) -> np.ndarray:
    x = np.asarray(x)
    result = x
    if low is not None:
        result = np.maximum(result, np.asarray(low).astype(x.dtype))
    if high is not None:
        result = np.minimum(result, np.asarray(high).astype(x.dtype))
    return _same(x, result)


def _as_2d(op: str, x: np.ndarray, axis: int) -> tuple[np.ndarray, tuple[int, ...]]:
    """Opset < 13: the input is seen as a matrix [prod(dims before axis), prod(dims from axis)]."""
    axis = axis + x.ndim if axis < 0 else axis
    if not 0 <= axis <= x.ndim:
        fail(op, f"axis={axis} is out of range for rank {x.ndim}")
    rows = int(np.prod(x.shape[:axis]))
    return x.reshape(rows, -1) if x.size else x.reshape(rows, int(np.prod(x.shape[axis:]))), x.shape


def _softmax_along(x: np.ndarray, axis: int, log: bool) -> np.ndarray:
    wide = x.astype(np.float64) if x.dtype == np.float16 else x
    # A row of only -inf gives NaN (inf - inf), as the standard's definition does.
    if not wide.size:
        return np.asarray(wide.astype(x.dtype))
    # One new array, then in place: the same operations as written out, without temporaries.
    with np.errstate(all="ignore"):
        shifted = np.subtract(wide, np.max(wide, axis=axis, keepdims=True))
        if log:
            total = np.sum(np.exp(shifted), axis=axis, keepdims=True)
            result = np.subtract(shifted, np.log(total), out=shifted)
        else:
            exp = np.exp(shifted, out=shifted)
            total = np.sum(exp, axis=axis, keepdims=True)
            result = np.divide(exp, total, out=exp)
    return np.asarray(result.astype(x.dtype, copy=False))


def _hardmax_along(x: np.ndarray, axis: int) -> np.ndarray:
    result = np.zeros_like(x)
    if x.size:
        index = np.expand_dims(np.argmax(x, axis=axis), axis)
        np.put_along_axis(result, index, 1, axis=axis)
    return result


def _softmax_family(op: str, legacy: bool) -> Any:
    @compute_in_float32
    def kernel(x: Any, *, axis: int = 1 if legacy else -1) -> np.ndarray:
        x = np.asarray(x)
        if legacy:
            matrix, shape = _as_2d(op, x, axis)
            out = (
                _hardmax_along(matrix, 1)
                if op == "Hardmax"
                else _softmax_along(matrix, 1, op == "LogSoftmax")
            )
            return out.reshape(shape)
        if x.ndim == 0:
            fail(op, "the input must have rank >= 1")
        a = normalize_axis(axis, x.ndim, op=op)
        if op == "Hardmax":
            return _hardmax_along(x, a)
        return _softmax_along(x, a, op == "LogSoftmax")

    if op != "Softmax" or legacy:
        return kernel

    def softmax_13(x: Any, *, axis: int = -1) -> np.ndarray:
        array = np.asarray(x)
        if array.ndim and (array.dtype == np.float16 or is_lowp(array)):
            return _softmax_in_type(array, normalize_axis(axis, array.ndim, op=op))
        return np.asarray(kernel(array, axis=axis))

    return softmax_13


def _softmax_in_type(x: np.ndarray, axis: int) -> np.ndarray:
    """Softmax of float16/bfloat16 as the standard's function body computes it in that type.

    Each step (ReduceMax, Sub, Exp, ReduceSum, Div) is rounded to the type, so the result
    matches models that spell Softmax out as primitive operators (e.g. Attention's body).
    """
    precision = Precision(element_type_of(x.dtype))
    moved = np.moveaxis(float_values(x), axis, -1)
    probs = precision.softmax(moved, zero_masked_rows=False)
    return precision.encode(np.moveaxis(probs, -1, axis))


def register(kernels: KernelRegistry) -> None:
    table: dict[str, Kernel] = {
        "Relu": relu,
        "LeakyRelu": leaky_relu,
        "Elu": elu,
        "Selu": selu,
        "Celu": celu,
        "Sigmoid": sigmoid,
        "HardSigmoid": hard_sigmoid,
        "HardSwish": hard_swish,
        "Softplus": softplus,
        "Softsign": softsign,
        "Mish": mish,
        "ThresholdedRelu": thresholded_relu,
        "Shrink": shrink,
        "Gelu": gelu,
        "Swish": swish,
        "PRelu": prelu,
        "SwiGLU": swiglu,
    }
    for name, fn in table.items():
        kernels.add(name, fn, since=versions(name))
    kernels.add("Clip", clip_6, since=versions_between("Clip", 1, 6))
    kernels.add("Clip", clip, since=versions_between("Clip", 11))
    for name in ("Softmax", "LogSoftmax", "Hardmax"):
        kernels.add(name, _softmax_family(name, True), since=versions_between(name, 1, 12))
        kernels.add(name, _softmax_family(name, False), since=versions_between(name, 13))
