"""Kernels for quantization: (De)QuantizeLinear, DynamicQuantizeLinear, QLinearMatMul,
MatMulInteger.

Scales and zero points are per tensor (scalars), per axis (1-D along ``axis``) or blocked (the
input's rank, ``block_size`` elements per scale along ``axis``). Integer outputs round half to
even and saturate to the type's range; float8 outputs go through :mod:`onnxcraft.numerics`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of, numpy_dtype
from onnxcraft.numerics import from_float32, to_float32
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import fail, is_lowp, normalize_axis
from onnxcraft.ops.run_guard import check_matmul
from onnxcraft.ops.versions import versions

__all__ = ["register"]

_RANGES = {
    ElementType.UINT8: (0, 255),
    ElementType.INT8: (-128, 127),
    ElementType.UINT16: (0, 65535),
    ElementType.INT16: (-32768, 32767),
    ElementType.UINT4: (0, 15),
    ElementType.INT4: (-8, 7),
    ElementType.UINT2: (0, 3),
    ElementType.INT2: (-2, 1),
}


def _values(x: np.ndarray) -> np.ndarray:
    """Numeric values of any representation (small floats decoded, small ints as int)."""
    if is_lowp(x):
        elem = element_type_of(x.dtype)
        if elem in _RANGES:
            return x[x.dtype.names[0]].astype(np.int64)  # type: ignore[index]
        return to_float32(x)
    return x


def _expand(op: str, param: np.ndarray, x: np.ndarray, axis: int, block_size: int) -> np.ndarray:
    """A scale or zero point shaped to broadcast against ``x``."""
    if param.ndim == 0 or (param.size == 1 and block_size == 0 and param.ndim <= 1):
        return param.reshape(())
    a = normalize_axis(axis, x.ndim, op=op)
    if block_size:
        if param.ndim != x.ndim:
            fail(
                op, f"blocked quantization needs a scale of rank {x.ndim}, got {list(param.shape)}"
            )
        expanded = np.repeat(param, block_size, axis=a)
        index = [slice(None)] * x.ndim
        index[a] = slice(0, x.shape[a])
        return expanded[tuple(index)]
    if param.ndim != 1 or param.shape[0] != x.shape[a]:
        fail(op, f"per-axis scale must be 1-D of length {x.shape[a]}, got {list(param.shape)}")
    return param.reshape((1,) * a + (-1,) + (1,) * (x.ndim - a - 1))


def quantize_linear(
    x: Any,
    y_scale: Any,
    y_zero_point: Any = None,
    *,
    axis: int = 1,
    block_size: int = 0,
    output_dtype: int = 0,
    saturate: int = 1,
    precision: int = 0,
) -> np.ndarray:
    op = "QuantizeLinear"
    x = np.asarray(x)
    scale = np.asarray(y_scale)
    if y_zero_point is not None:
        zero = np.asarray(y_zero_point)
        target = element_type_of(zero.dtype)
    else:
        zero = None
        target = ElementType(output_dtype) if output_dtype else ElementType.UINT8
    wide = (
        np.float64
        if np.float64 in (x.dtype, scale.dtype) or precision == ElementType.DOUBLE
        else np.float32
    )
    xv = _values(x).astype(wide)
    sv = _expand(op, _values(scale).astype(wide), xv, axis, block_size)
    with np.errstate(all="ignore"):
        scaled = xv / sv
    if target in _RANGES:
        low, high = _RANGES[target]
        zp = (
            0
            if zero is None
            else _expand(op, _values(zero).astype(np.float64), xv, axis, block_size)
        )
        result = np.clip(np.rint(scaled) + zp, low, high)
        dtype = numpy_dtype(target)
        if dtype.names:
            storage = np.int8 if low < 0 else np.uint8
            return np.asarray(result.astype(storage).view(dtype))
        return np.asarray(result.astype(dtype))
    if zero is not None:
        scaled = scaled + _expand(op, _values(zero).astype(wide), xv, axis, block_size)
    return from_float32(scaled, target, saturate=bool(saturate))


def dequantize_linear(
    x: Any,
    x_scale: Any,
    x_zero_point: Any = None,
    *,
    axis: int = 1,
    block_size: int = 0,
    output_dtype: int = 0,
) -> np.ndarray:
    op = "DequantizeLinear"
    x = np.asarray(x)
    scale = np.asarray(x_scale)
    values = _values(x).astype(np.float64 if scale.dtype == np.float64 else np.float32)
    if x_zero_point is not None:
        zero = _values(np.asarray(x_zero_point)).astype(values.dtype)
        values = values - _expand(op, zero, values, axis, block_size)
    sv = _expand(op, _values(scale).astype(values.dtype), values, axis, block_size)
    result = values * sv
    target = ElementType(output_dtype) if output_dtype else element_type_of(scale.dtype)
    dtype = numpy_dtype(target)
    return from_float32(result, target) if dtype.names else result.astype(dtype)


def dynamic_quantize_linear(x: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=np.float32)
    # In float32 throughout, each step rounded as the standard's function body rounds it: a
    # scale one ulp off moves a zero point or a code that sits on a rounding tie.
    none = np.float32(0)
    low = np.minimum(none, x.min()) if x.size else none
    high = np.maximum(none, x.max()) if x.size else none
    scale = np.float32(high - low) / np.float32(255)
    zero = np.uint8(np.rint(np.clip(none - low / scale, 0, 255))) if scale else np.uint8(0)
    y = (
        np.clip(np.rint(x / scale) + zero, 0, 255).astype(np.uint8)
        if scale
        else np.zeros(x.shape, np.uint8)
    )
    return y, np.array(scale, np.float32), np.array(zero, np.uint8)


def _centered(x: Any, zero: Any, row_axis: bool, arg: str) -> np.ndarray:
    """MatMulInteger's A (``row_axis``) or B less its zero point: a scalar, or a vector with
    one entry per row of A (M) or per column of B (N), or a tensor broadcasting as such."""
    values = _values(np.asarray(x)).astype(np.int64)
    if zero is None:
        return values
    z = _values(np.asarray(zero)).astype(np.int64)
    if z.ndim == 1 and z.size != 1:  # per row or column; a length of 0 (M or N = 0) included
        axis = -2 if row_axis else -1
        count = values.shape[axis] if values.ndim >= 2 else None
        if z.size != count:
            what = "row of A (M)" if row_axis else "column of B (N)"
            fail(
                "MatMulInteger",
                f"{arg} must be a scalar or hold one entry per {what}, {count} for shape "
                f"{list(values.shape)}; got shape {list(z.shape)}",
            )
        z = z.reshape(-1, 1) if row_axis else z  # A's rows run down a column
    return values - z


def mat_mul_integer(
    a: Any, b: Any, a_zero_point: Any = None, b_zero_point: Any = None
) -> np.ndarray:
    a_centered = _centered(a, a_zero_point, True, "a_zero_point")
    b_centered = _centered(b, b_zero_point, False, "b_zero_point")
    check_matmul("MatMulInteger", a_centered, b_centered, np.int64)
    return np.asarray(np.matmul(a_centered, b_centered).astype(np.int32))


def qlinear_mat_mul(
    a: Any,
    a_scale: Any,
    a_zero_point: Any,
    b: Any,
    b_scale: Any,
    b_zero_point: Any,
    y_scale: Any,
    y_zero_point: Any,
) -> np.ndarray:
    a_values = _values(np.asarray(a)).astype(np.float64) - _values(np.asarray(a_zero_point)).astype(
        np.float64
    )
    b_values = _values(np.asarray(b)).astype(np.float64) - _values(np.asarray(b_zero_point)).astype(
        np.float64
    )
    a_scale_v = _values(np.asarray(a_scale)).astype(np.float64)
    b_scale_v = _values(np.asarray(b_scale)).astype(np.float64)
    if a_scale_v.ndim == 1 and a_scale_v.size > 1:
        a_scale_v = a_scale_v.reshape(-1, 1)
    check_matmul("QLinearMatMul", a_values, b_values)
    product = np.matmul(a_values * a_scale_v, b_values * b_scale_v)
    y_zero = np.asarray(y_zero_point)
    return quantize_linear(product, np.asarray(y_scale).astype(np.float64), y_zero, axis=-1)


def register(kernels: KernelRegistry) -> None:
    kernels.add("QuantizeLinear", quantize_linear, since=versions("QuantizeLinear"))
    kernels.add("DequantizeLinear", dequantize_linear, since=versions("DequantizeLinear"))
    kernels.add(
        "DynamicQuantizeLinear", dynamic_quantize_linear, since=versions("DynamicQuantizeLinear")
    )
    kernels.add("MatMulInteger", mat_mul_integer, since=versions("MatMulInteger"))
    kernels.add("QLinearMatMul", qlinear_mat_mul, since=versions("QLinearMatMul"))
