"""Small helpers shared by the kernel families: errors, axes, low-precision element types."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, NoReturn, TypeVar

import numpy as np

from onnxcraft.dtypes import element_type_of
from onnxcraft.errors import EvaluationError
from onnxcraft.numerics import from_float32, to_float32

__all__ = [
    "compute_in_float32",
    "compute_rounded_once",
    "fail",
    "is_lowp",
    "normalize_axes",
    "normalize_axis",
]

F = TypeVar("F", bound=Callable[..., Any])


def fail(op: str, message: str) -> NoReturn:
    """Raise the evaluator's error for operator ``op``."""
    raise EvaluationError(f"{op}: {message}")


def normalize_axis(axis: int, rank: int, *, op: str, arg: str = "axis") -> int:
    """Map a possibly negative axis into ``[0, rank)``, or fail naming the argument."""
    if not -rank <= axis < rank:
        fail(
            op,
            f"{arg}={axis} is out of range for a tensor of rank {rank} "
            f"(expected {-rank} <= {arg} < {rank})",
        )
    return axis + rank if axis < 0 else axis


def normalize_axes(
    axes: Iterable[int], rank: int, *, op: str, arg: str = "axes"
) -> tuple[int, ...]:
    """Normalize every axis of ``axes``; repeated axes are an error."""
    result = tuple(normalize_axis(int(a), rank, op=op, arg=arg) for a in axes)
    if len(set(result)) != len(result):
        fail(op, f"{arg} has repeated entries: {list(axes)}")
    return result


def is_lowp(array: Any) -> bool:
    """True for the structured representation of types numpy lacks (bfloat16, float8 ...)."""
    dtype = getattr(array, "dtype", None)
    return dtype is not None and dtype.names is not None and len(dtype.names) == 1


def compute_in_float32(fn: F) -> F:
    """Run a float kernel on low-precision inputs by decoding them to float32 first.

    Array outputs of a float kind are encoded back into the element type of the first
    low-precision input, rounding to nearest even, as the standard computes these types.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        target = next((a for a in args if is_lowp(a)), None)
        if target is None:
            return fn(*args, **kwargs)
        elem = element_type_of(target.dtype)
        decoded = [to_float32(a) if is_lowp(a) else a for a in args]
        result = fn(*decoded, **kwargs)

        def encode(value: Any) -> Any:
            if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                return from_float32(value, elem)
            return value

        if isinstance(result, tuple):
            return tuple(encode(v) for v in result)
        return encode(result)

    return wrapper  # type: ignore[return-value]


def compute_rounded_once(fn: F) -> F:
    """Run an elementwise float kernel in float32 for float16 and the low-precision types,
    rounding each result to the input's type once (as :func:`compute_in_float32` does for
    bfloat16 and float8), so that a formula of several steps does not round at every step.
    """
    inner = compute_in_float32(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not any(getattr(a, "dtype", None) == np.float16 for a in args):
            return inner(*args, **kwargs)
        widened = [
            np.asarray(a, np.float32) if getattr(a, "dtype", None) == np.float16 else a
            for a in args
        ]
        result = inner(*widened, **kwargs)

        def narrow(value: Any) -> Any:
            if isinstance(value, np.ndarray) and value.dtype == np.float32:
                return value.astype(np.float16)
            return value

        if isinstance(result, tuple):
            return tuple(narrow(v) for v in result)
        return narrow(result)

    return wrapper  # type: ignore[return-value]
