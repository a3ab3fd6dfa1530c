"""VJP rules of MatMul and Gemm.

For C = A @ B the cotangents are g @ B^T and A^T @ g. MatMul follows numpy: a 1-D operand is
a row (A) or column (B) vector whose added axis is dropped from the result, and the batch
axes broadcast, so their cotangents are summed back down.
"""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.vjp_api import VjpCall, VjpRegistry
from onnxcraft.ops.vjp_common import sum_to_shape

__all__ = ["register"]

Grads = list[np.ndarray | None]


def _matmul(call: VjpCall) -> Grads:
    a, b = np.asarray(call.inputs[0]), np.asarray(call.inputs[1])
    g = call.g
    # Restore the axes numpy dropped for 1-D operands, so both products are plain matmuls.
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    if b.ndim == 1:  # first: for two vectors g is 0-D and gains its column axis here
        g = np.expand_dims(g, -1)
    if a.ndim == 1:
        g = np.expand_dims(g, -2)
    ga = gb = None
    if call.wants(0):
        ga = sum_to_shape(np.matmul(g, np.swapaxes(b2, -1, -2)), a2.shape).reshape(a.shape)
    if call.wants(1):
        gb = sum_to_shape(np.matmul(np.swapaxes(a2, -1, -2), g), b2.shape).reshape(b.shape)
    return [ga, gb]


def _gemm(call: VjpCall) -> Grads:
    """Y = alpha * A' @ B' + beta * C with A' = A^T if transA, B' = B^T if transB."""
    a, b = np.asarray(call.inputs[0]), np.asarray(call.inputs[1])
    c = call.input(2)
    alpha, beta = float(call.attr("alpha", 1.0)), float(call.attr("beta", 1.0))
    trans_a, trans_b = bool(call.attr("transA", 0)), bool(call.attr("transB", 0))
    g = call.g
    a_used = a.T if trans_a else a
    b_used = b.T if trans_b else b
    grads: Grads = [None] * len(call.inputs)
    if call.wants(0):
        ga = alpha * np.matmul(g, b_used.T)  # the cotangent of A'
        grads[0] = (ga.T if trans_a else ga).astype(a.dtype)
    if call.wants(1):
        gb = alpha * np.matmul(a_used.T, g)  # the cotangent of B'
        grads[1] = (gb.T if trans_b else gb).astype(b.dtype)
    if c is not None and call.wants(2):
        # beta = 0 drops C altogether (the kernel does not even read it): zero cotangent.
        gc = sum_to_shape(beta * g, np.shape(c)) if beta != 0 else np.zeros(np.shape(c))
        grads[2] = gc.astype(np.asarray(c).dtype)
    return grads


def register(rules: VjpRegistry) -> None:
    rules.add("MatMul", _matmul)
    rules.add("Gemm", _gemm)
