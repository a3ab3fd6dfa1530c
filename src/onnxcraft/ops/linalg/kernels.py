"""Kernels for MatMul, Gemm and Det."""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail
from onnxcraft.ops.run_guard import check_matmul
from onnxcraft.ops.versions import versions

__all__ = ["register"]


@compute_in_float32
def matmul(a: Any, b: Any) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        fail("MatMul", "inputs must have rank >= 1")
    check_matmul("MatMul", a, b)
    try:
        if b.ndim == 2 and a.ndim > 2 and a.size and b.size and a.flags.c_contiguous:
            # one matrix product over every row of the stack, not one per leading index
            rows = np.matmul(a.reshape(-1, a.shape[-1]), b)
            result = rows.reshape(*a.shape[:-1], b.shape[1])
        else:
            result = np.matmul(a, b)
    except ValueError as exc:
        fail("MatMul", f"shapes {list(a.shape)} and {list(b.shape)} do not multiply: {exc}")
    return np.asarray(result).astype(np.result_type(a, b), copy=False)


@compute_in_float32
def gemm(
    a: Any,
    b: Any,
    c: Any = None,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    transA: int = 0,
    transB: int = 0,
    broadcast: int = 0,
) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 2 or b.ndim != 2:
        fail("Gemm", f"A and B must be 2-D, got {list(a.shape)} and {list(b.shape)}")
    a = a.T if transA else a
    b = b.T if transB else b
    if a.shape[1] != b.shape[0]:
        fail("Gemm", f"inner dimensions differ: A[..., {a.shape[1]}] vs B[{b.shape[0]}, ...]")
    dtype = a.dtype
    check_matmul("Gemm", a, b, dtype)
    result = np.matmul(a, b)
    if alpha != 1.0:
        result = result * np.asarray(alpha, dtype=dtype if dtype.kind == "f" else np.float64)
    if c is not None and beta != 0:
        c = np.asarray(c)
        result = result + (
            c * np.asarray(beta, dtype=c.dtype if c.dtype.kind == "f" else np.float64)
        )
    return np.asarray(result).astype(dtype, copy=False)


@compute_in_float32
def det(x: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        fail("Det", f"the input must be [..., M, M], got {list(x.shape)}")
    # numpy.linalg takes float32 and float64 only; float16 is computed in float32 and rounded.
    work = x if x.dtype in (np.float32, np.float64) else x.astype(np.float32)
    return np.asarray(np.linalg.det(work)).astype(x.dtype)


def register(kernels: KernelRegistry) -> None:
    kernels.add("MatMul", matmul, since=versions("MatMul"))
    kernels.add("Gemm", gemm, since=versions("Gemm"))
    kernels.add("Det", det, since=versions("Det"))
