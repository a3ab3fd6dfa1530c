"""Kernels for Pad, Trilu, EyeLike, OneHot, Compress, NonZero, Unique, CumProd, ReverseSequence,
DepthToSpace/SpaceToDepth, Einsum and BitCast."""

from __future__ import annotations

import builtins
import math
import re
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of, numpy_dtype
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail, normalize_axes, normalize_axis
from onnxcraft.ops.run_guard import check_allocation
from onnxcraft.ops.tensor_ops.shapes import pads_by_axis
from onnxcraft.ops.versions import versions, versions_between

__all__ = ["register"]


def _pad(
    x: np.ndarray, pads: list[int], mode: str, value: Any, axes: list[int] | None
) -> np.ndarray:
    rank = x.ndim
    axes = list(range(rank)) if axes is None else list(normalize_axes(axes, rank, op="Pad"))
    if len(pads) != 2 * len(axes):
        fail("Pad", f"pads has {len(pads)} entries, expected {2 * len(axes)}")
    before = [0] * rank
    after = [0] * rank
    for a, (begin, end) in pads_by_axis(pads, axes).items():
        before[a], after[a] = begin, end
    # Negative pads crop first; the rest is padding.
    crop = tuple(
        slice(max(-b, 0), x.shape[i] - max(-e, 0)) for i, (b, e) in enumerate(zip(before, after))
    )
    x = x[crop]
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(before, after)]
    check_allocation("Pad", (n + b + e for n, (b, e) in zip(x.shape, widths)), x.dtype)
    if mode == "constant":
        return np.pad(x, widths, mode="constant", constant_values=value)
    if mode == "reflect":
        return np.pad(x, widths, mode="reflect")
    if mode == "edge":
        return np.pad(x, widths, mode="edge")
    if mode == "wrap":
        return np.pad(x, widths, mode="wrap")
    fail("Pad", f"mode must be constant, reflect, edge or wrap, got {mode!r}")


def _zero_of(x: np.ndarray) -> Any:
    """The fill of an omitted constant_value: 0, False, or the empty string for strings (an
    object array of Python strings would otherwise get the integer 0 mixed in)."""
    if x.dtype == object or x.dtype.kind in "US":
        return ""
    return np.zeros((), x.dtype)[()]


def pad(
    data: Any, pads: Any, constant_value: Any = None, axes: Any = None, *, mode: str = "constant"
) -> np.ndarray:
    x = np.asarray(data)
    value = _zero_of(x) if constant_value is None else np.asarray(constant_value).reshape(-1)[0]
    axis_list = None if axes is None else [int(a) for a in np.asarray(axes).reshape(-1)]
    return _pad(x, [int(p) for p in np.asarray(pads).reshape(-1)], mode, value, axis_list)


def pad_attr(
    data: Any,
    *,
    pads: list[int] | None = None,
    paddings: list[int] | None = None,
    mode: str = "constant",
    value: float = 0.0,
) -> np.ndarray:
    amounts = pads if pads is not None else paddings
    if amounts is None:
        fail("Pad", "pads is required")
    return _pad(np.asarray(data), list(amounts), mode, value, None)


def trilu(x: Any, k: Any = None, *, upper: int = 1) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim < 2:
        fail("Trilu", f"the input must have rank >= 2, got {x.ndim}")
    offset = 0 if k is None else int(np.asarray(k).reshape(-1)[0])
    return np.triu(x, offset) if upper else np.tril(x, offset)


def eye_like(x: Any, *, dtype: int | None = None, k: int = 0) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim != 2:
        fail("EyeLike", f"the input must be 2-D, got rank {x.ndim}")
    target = x.dtype if dtype is None else numpy_dtype(ElementType(dtype))
    return np.eye(x.shape[0], x.shape[1], k=k, dtype=target)


def one_hot(indices: Any, depth: Any, values: Any, *, axis: int = -1) -> np.ndarray:
    indices = np.asarray(indices)
    values = np.asarray(values)
    size = int(np.asarray(depth).reshape(-1)[0])
    rank = indices.ndim + 1
    a = normalize_axis(axis, rank, op="OneHot")
    index = np.asarray(indices).astype(np.int64)
    index = np.where(index < 0, index + size, index)
    out_shape = (*indices.shape[:a], size, *indices.shape[a:])
    check_allocation("OneHot", out_shape, values.dtype)
    hot = np.arange(size).reshape((1,) * a + (size,) + (1,) * (rank - a - 1))
    expanded = np.expand_dims(index, a)
    return np.asarray(np.where(expanded == hot, values[1], values[0]).astype(values.dtype))


def compress(x: Any, condition: Any, *, axis: int | None = None) -> np.ndarray:
    x = np.asarray(x)
    cond = np.asarray(condition, dtype=bool).reshape(-1)
    if axis is None:
        flat = x.reshape(-1)
        return np.asarray(flat[: cond.size][cond[: flat.size]])
    a = normalize_axis(axis, x.ndim, op="Compress")
    return np.compress(cond, x, axis=a)


def non_zero(x: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim == 0:
        return np.zeros((0, int(bool(x))), np.int64) if not x else np.zeros((0, 1), np.int64)
    return np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)


def _unique_strings(x: np.ndarray, a: int) -> tuple[np.ndarray, ...]:
    """``np.unique`` along axis ``a`` for strings, which numpy cannot do: the slices along
    ``a`` compared as tuples. Returns the sorted slices, first indices, inverse and counts."""
    moved = np.moveaxis(x, a, 0)
    slices = [tuple(row) for row in moved.reshape(moved.shape[0], math.prod(moved.shape[1:]))]
    first: dict[tuple[Any, ...], int] = {}
    for index, key in enumerate(slices):
        first.setdefault(key, index)
    ordered = builtins.sorted(first)  # the attribute `sorted` shadows the builtin
    position = {key: k for k, key in enumerate(ordered)}
    firsts = np.array([first[key] for key in ordered], dtype=np.int64)
    inverse = np.array([position[key] for key in slices], dtype=np.int64)
    counts = np.bincount(inverse, minlength=len(ordered))
    return np.moveaxis(np.take(moved, firsts, axis=0), 0, a), firsts, inverse, counts


def unique(x: Any, *, axis: int | None = None, sorted: int = 1) -> tuple[np.ndarray, ...]:
    x = np.asarray(x)
    a = None if axis is None else normalize_axis(axis, x.ndim, op="Unique")
    if a is not None and x.dtype == object:
        values, first, inverse, counts = _unique_strings(x, a)
    else:
        values, first, inverse, counts = np.unique(
            x, return_index=True, return_inverse=True, return_counts=True, axis=a
        )
    inverse = inverse.reshape(-1)
    if not sorted:
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        values = np.take(values, order, axis=0 if a is None else a)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    return (values, first.astype(np.int64), inverse.astype(np.int64), counts.astype(np.int64))


@compute_in_float32
def cum_prod(x: Any, axis: Any, *, exclusive: int = 0, reverse: int = 0) -> np.ndarray:
    x = np.asarray(x)
    a = normalize_axis(int(np.asarray(axis).reshape(-1)[0]), x.ndim, op="CumProd")
    data = np.flip(x, a) if reverse else x
    result = np.cumprod(data, axis=a, dtype=x.dtype)
    if exclusive and result.shape[a]:  # an empty axis stays empty
        ones = np.ones_like(np.take(result, [0], axis=a))
        result = np.concatenate(
            [ones, np.take(result, np.arange(result.shape[a] - 1), axis=a)], axis=a
        )
    return np.flip(result, a) if reverse else result


def reverse_sequence(
    x: Any, sequence_lens: Any, *, batch_axis: int = 1, time_axis: int = 0
) -> np.ndarray:
    x = np.asarray(x)
    result = x.copy()
    for b, length in enumerate(np.asarray(sequence_lens).reshape(-1)):
        index: list[Any] = [slice(None)] * x.ndim
        index[batch_axis] = b
        index[time_axis] = slice(0, int(length))
        result[tuple(index)] = np.flip(
            x[tuple(index)], axis=time_axis - (1 if batch_axis < time_axis else 0)
        )
    return np.asarray(result)


def depth_to_space(x: Any, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    x = np.asarray(x)
    n, c, h, w = x.shape
    b = blocksize
    if mode == "DCR":
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return np.asarray(y.reshape(n, c // (b * b), h * b, w * b))


def space_to_depth(x: Any, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    x = np.asarray(x)
    n, c, h, w = x.shape
    b = blocksize
    blocks = x.reshape(n, c, h // b, b, w // b, b)
    y = blocks.transpose(0, 3, 5, 1, 2, 4) if mode == "DCR" else blocks.transpose(0, 1, 3, 5, 2, 4)
    return np.asarray(y.reshape(n, c * b * b, h // b, w // b))


_EQUATION = re.compile(
    r"^\s*(\.\.\.|[A-Za-z])*(\s*,\s*(\.\.\.|[A-Za-z])*)*\s*(->\s*(\.\.\.|[A-Za-z])*\s*)?$"
)


@compute_in_float32
def einsum(*inputs: Any, equation: str) -> np.ndarray:
    if not _EQUATION.match(equation):
        fail("Einsum", f"invalid equation {equation!r}")
    arrays = [np.asarray(x) for x in inputs]
    try:
        result = np.einsum(equation.replace(" ", ""), *arrays)
    except ValueError as exc:
        fail("Einsum", f"equation {equation!r} does not fit the inputs: {exc}")
    return np.asarray(result).astype(arrays[0].dtype, copy=False)


# Types narrower than a byte, held one value per byte (see docs/tensors.md): their width, and
# whether the byte holds the value sign-extended.
_NARROW = {
    ElementType.INT4: (4, True),
    ElementType.UINT4: (4, False),
    ElementType.FLOAT4E2M1: (4, False),
    ElementType.INT2: (2, True),
    ElementType.UINT2: (2, False),
    ElementType.FLOAT6E2M3: (6, False),
    ElementType.FLOAT6E3M2: (6, False),
}


def _width(elem: ElementType) -> int:
    return _NARROW[elem][0] if elem in _NARROW else 8 * numpy_dtype(elem).itemsize


def bit_cast(x: Any, *, to: int) -> np.ndarray:
    x = np.asarray(x)
    try:
        target_elem = ElementType(to)
    except ValueError:
        target_elem = ElementType.UNDEFINED
    if target_elem == ElementType.UNDEFINED:
        fail("BitCast", f"attribute 'to' must be an element type, got {to!r}")
    source_elem, target = element_type_of(x.dtype), numpy_dtype(target_elem)
    if x.dtype == object or target == np.dtype(object):
        fail("BitCast", "strings have no bit pattern: input and `to` must not be string")
    if _width(source_elem) != _width(target_elem):
        fail(
            "BitCast",
            f"attribute 'to' must name a type as wide as the input's "
            f"{source_elem.name.lower()} ({_width(source_elem)} bits), got "
            f"{target_elem.name.lower()} ({_width(target_elem)} bits)",
        )
    flat = np.ascontiguousarray(x).reshape(-1)
    if source_elem in _NARROW:  # the value's bits only: the byte may hold a sign extension
        width, signed = _NARROW[target_elem]
        bits = flat.view(np.uint8) & np.uint8((1 << width) - 1)
        if signed:  # the target's byte holds its value sign-extended
            extended = np.where(bits >> (width - 1), bits.astype(np.int16) - (1 << width), bits)
            return np.asarray(extended.astype(np.int8).view(target).reshape(x.shape))
        return np.asarray(bits.view(target).reshape(x.shape))
    return np.asarray(flat.view(target).reshape(x.shape))


def register(kernels: KernelRegistry) -> None:
    kernels.add("Pad", pad_attr, since=versions_between("Pad", 1, 2))
    kernels.add("Pad", pad, since=versions_between("Pad", 11))
    kernels.add("Trilu", trilu, since=versions("Trilu"))
    kernels.add("EyeLike", eye_like, since=versions("EyeLike"))
    kernels.add("OneHot", one_hot, since=versions("OneHot"))
    kernels.add("Compress", compress, since=versions("Compress"))
    kernels.add("NonZero", non_zero, since=versions("NonZero"))
    kernels.add("Unique", unique, since=versions("Unique"))
    kernels.add("CumProd", cum_prod, since=versions("CumProd"))
    kernels.add("ReverseSequence", reverse_sequence, since=versions("ReverseSequence"))
    kernels.add("DepthToSpace", depth_to_space, since=versions("DepthToSpace"))
    kernels.add("SpaceToDepth", space_to_depth, since=versions("SpaceToDepth"))
    kernels.add("Einsum", einsum, since=versions("Einsum"))
    kernels.add("BitCast", bit_cast, since=versions("BitCast"))
