"""Kernels for reductions, ArgMax/ArgMin, TopK and CumSum.

Reductions take ``axes`` as an attribute before ReduceSum-13 and the others' opset 18, as an
optional input after. Reducing an empty set gives the operation's identity (0 for sums, 1 for
products, the type's lowest value for max ...), as the standard defines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail, normalize_axes, normalize_axis
from onnxcraft.ops.versions import versions, versions_between

__all__ = ["register"]


def _lowest(dtype: np.dtype[Any]) -> Any:
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


def _highest(dtype: np.dtype[Any]) -> Any:
    if dtype.kind == "f":
        return np.inf
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).max


def _log_sum_exp(x: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
    if x.dtype.kind in "iub":
        # Integers go through double, as the function body casts them (x - peak must not wrap).
        x = x.astype(np.float64)
    if x.size == 0:
        return np.full(np.sum(x, axis=axis, keepdims=keepdims).shape, -np.inf, x.dtype)
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0)
    total = np.sum(np.exp(x - peak), axis=axis, keepdims=True)
    result = np.log(total) + peak
    return np.asarray(result if keepdims else np.squeeze(result, axis=axis))


_REDUCERS: dict[str, Callable[[np.ndarray, tuple[int, ...], bool], np.ndarray]] = {
    "ReduceSum": lambda x, a, k: np.sum(x, axis=a, keepdims=k),
    "ReduceMean": lambda x, a, k: np.mean(x, axis=a, keepdims=k),
    "ReduceProd": lambda x, a, k: np.prod(x, axis=a, keepdims=k),
    "ReduceSumSquare": lambda x, a, k: np.sum(x * x, axis=a, keepdims=k),
    "ReduceL1": lambda x, a, k: np.sum(np.abs(x), axis=a, keepdims=k),
    "ReduceL2": lambda x, a, k: np.sqrt(np.sum(x.astype(np.float64) * x, axis=a, keepdims=k)),
    "ReduceLogSum": lambda x, a, k: np.log(np.sum(x, axis=a, keepdims=k)),
    "ReduceLogSumExp": _log_sum_exp,
    "ReduceMax": lambda x, a, k: np.max(x, axis=a, keepdims=k, initial=_lowest(x.dtype)),
    "ReduceMin": lambda x, a, k: np.min(x, axis=a, keepdims=k, initial=_highest(x.dtype)),
}
# The version from which axes is an input.
_AXES_INPUT = {"ReduceSum": 13}


def _reduce(op: str, x: np.ndarray, axes: list[int] | None, keepdims: int, noop: int) -> np.ndarray:
    if not axes:
        # noop_with_empty_axes reduces over no axis at all, which still applies the elementwise
        # part of the operator (x*x, |x|, log x ...), as its function body does; numpy's
        # reductions over the empty tuple of axes do exactly that.
        axes = [] if noop else list(range(x.ndim))
    norm = normalize_axes(axes, x.ndim, op=op)
    with np.errstate(all="ignore"):
        result = _REDUCERS[op](x, norm, bool(keepdims))
    return np.asarray(result).astype(x.dtype, copy=False)


def _with_attribute(op: str) -> Callable[..., Any]:
    @compute_in_float32
    def kernel(data: Any, *, axes: list[int] | None = None, keepdims: int = 1) -> np.ndarray:
        return _reduce(op, np.asarray(data), None if axes is None else list(axes), keepdims, 0)

    return kernel


def _with_input(op: str) -> Callable[..., Any]:
    @compute_in_float32
    def kernel(
        data: Any, axes: Any = None, *, keepdims: int = 1, noop_with_empty_axes: int = 0
    ) -> np.ndarray:
        values = None if axes is None else [int(a) for a in np.asarray(axes).reshape(-1)]
        return _reduce(op, np.asarray(data), values, keepdims, noop_with_empty_axes)

    return kernel


def _arg(op: str) -> Callable[..., Any]:
    pick = np.argmax if op == "ArgMax" else np.argmin

    @compute_in_float32
    def kernel(
        data: Any, *, axis: int = 0, keepdims: int = 1, select_last_index: int = 0
    ) -> np.ndarray:
        data = np.asarray(data)
        a = normalize_axis(axis, data.ndim, op=op)
        if data.shape[a] == 0:
            fail(op, f"cannot take {op} along an empty axis {a}")
        if select_last_index:
            flipped = np.flip(data, axis=a)
            index = data.shape[a] - 1 - pick(flipped, axis=a)
        else:
            index = pick(data, axis=a)
        index = index.astype(np.int64)
        return np.expand_dims(index, a) if keepdims else index

    return kernel


@compute_in_float32
def top_k(
    x: Any,
    k: Any = None,
    *,
    axis: int = -1,
    largest: int = 1,
    sorted: int = 1,
    k_attr: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x)
    count = int(np.asarray(k).reshape(-1)[0]) if k is not None else int(k_attr or 0)
    a = normalize_axis(axis, x.ndim, op="TopK")
    if not 0 <= count <= x.shape[a]:
        fail("TopK", f"k={count} is outside [0, {x.shape[a]}] (the length of axis {a})")
    # A stable sort keeps equal values in index order, as the standard requires.
    keys = -x if largest else x
    if x.dtype.kind in "ui" and largest:
        # ~x = -x - 1 reverses the order of any integer type without wrapping (-x and
        # max - x wrap for signed types).
        keys = np.invert(x)
    order = np.argsort(keys, axis=a, kind="stable")
    index = np.take(order, np.arange(count), axis=a)
    return np.take_along_axis(x, index, axis=a), index.astype(np.int64)


def top_k_1(x: Any, *, k: int, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    return top_k(x, None, axis=axis, k_attr=k)


@compute_in_float32
def cum_sum(x: Any, axis: Any, *, exclusive: int = 0, reverse: int = 0) -> np.ndarray:
    x = np.asarray(x)
    a = normalize_axis(int(np.asarray(axis).reshape(-1)[0]), x.ndim, op="CumSum")
    data = np.flip(x, a) if reverse else x
    result = np.cumsum(data, axis=a, dtype=x.dtype)
    if exclusive and result.shape[a]:  # an empty axis stays empty
        result = np.concatenate(
            [
                np.zeros_like(np.take(result, [0], axis=a)),
                np.take(result, np.arange(result.shape[a] - 1), axis=a),
            ],
            axis=a,
        )
    return np.flip(result, a) if reverse else result


def register(kernels: KernelRegistry) -> None:
    for op in _REDUCERS:
        first_input = _AXES_INPUT.get(op, 18)
        kernels.add(op, _with_attribute(op), since=versions_between(op, 1, first_input - 1))
        kernels.add(op, _with_input(op), since=versions_between(op, first_input))
    kernels.add("ArgMax", _arg("ArgMax"), since=versions("ArgMax"))
    kernels.add("ArgMin", _arg("ArgMin"), since=versions("ArgMin"))
    kernels.add("TopK", top_k_1, since=versions_between("TopK", 1, 9))
    kernels.add("TopK", top_k, since=versions_between("TopK", 10))
    kernels.add("CumSum", cum_sum, since=versions("CumSum"))
