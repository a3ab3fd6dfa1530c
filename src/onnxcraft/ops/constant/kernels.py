"""Kernels for Constant, ConstantOfShape and Range."""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail
from onnxcraft.ops.run_guard import check_allocation
from onnxcraft.ops.versions import versions

__all__ = ["register"]


def constant(**attributes: Any) -> np.ndarray:
    given = {k: v for k, v in attributes.items() if v is not None}
    if len(given) != 1:
        fail("Constant", f"exactly one value attribute must be set, got {sorted(given) or 'none'}")
    name, value = next(iter(given.items()))
    if name in ("value", "sparse_value"):
        return np.array(value)  # sparse values arrive densified by the evaluator
    if name == "value_float":
        return np.array(value, dtype=np.float32)
    if name == "value_floats":
        return np.array(value, dtype=np.float32).reshape(-1)
    if name == "value_int":
        return np.array(value, dtype=np.int64)
    if name == "value_ints":
        return np.array(value, dtype=np.int64).reshape(-1)
    if name == "value_string":
        return np.array(value, dtype=object)
    if name == "value_strings":
        out = np.empty(len(value), dtype=object)
        out[:] = list(value)
        return out
    fail("Constant", f"unknown value attribute {name!r}")


def constant_of_shape(shape: Any, *, value: Any = None) -> np.ndarray:
    dims = [int(d) for d in np.asarray(shape).reshape(-1)]
    if any(d < 0 for d in dims):
        fail("ConstantOfShape", f"shape {dims} has negative dims")
    fill = np.zeros(1, np.float32) if value is None else np.asarray(value).reshape(-1)
    if fill.size != 1:
        fail("ConstantOfShape", f"value must hold one element, got {fill.size}")
    check_allocation("ConstantOfShape", dims, fill.dtype)
    return np.full(dims, fill[0], dtype=fill.dtype)


@compute_in_float32
def range_(start: Any, limit: Any, delta: Any, *, stash_type: int | None = None) -> np.ndarray:
    start, limit, delta = (np.asarray(v) for v in (start, limit, delta))
    step = delta.reshape(-1)[0]
    if step == 0:
        fail("Range", "delta must not be 0")
    count = max(int(np.ceil((limit.reshape(-1)[0] - start.reshape(-1)[0]) / step)), 0)
    check_allocation("Range", (count,), start.dtype)
    return np.asarray((start.reshape(-1)[0] + np.arange(count) * step).astype(start.dtype))


def register(kernels: KernelRegistry) -> None:
    kernels.add("Constant", constant, since=versions("Constant"))
    kernels.add("ConstantOfShape", constant_of_shape, since=versions("ConstantOfShape"))
    kernels.add("Range", range_, since=versions("Range"))
