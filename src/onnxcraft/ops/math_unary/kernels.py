"""Kernels for unary math: Abs, Neg, Exp, Log, Sqrt, trigonometry, rounding, Sign, Erf ..."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32
from onnxcraft.ops.special import erf
from onnxcraft.ops.versions import versions

__all__ = ["register"]


def _unary(fn: Callable[[np.ndarray], Any], name: str) -> Callable[..., Any]:
    @compute_in_float32
    def kernel(x: Any, *, consumed_inputs: Any = None) -> np.ndarray:
        x = np.asarray(x)
        with np.errstate(all="ignore"):
            return np.asarray(fn(x)).astype(x.dtype, copy=False)

    kernel.__name__ = name.lower()
    return kernel


def _erf_values(x: np.ndarray) -> np.ndarray:
    return erf(x.astype(np.float64))


_FUNCTIONS: dict[str, Callable[[np.ndarray], Any]] = {
    "Abs": np.abs,
    "Neg": np.negative,
    "Exp": np.exp,
    "Log": np.log,
    "Sqrt": np.sqrt,
    "Reciprocal": np.reciprocal,
    "Floor": np.floor,
    "Ceil": np.ceil,
    "Round": np.round,
    "Sign": np.sign,
    "Sin": np.sin,
    "Cos": np.cos,
    "Tan": np.tan,
    "Asin": np.arcsin,
    "Acos": np.arccos,
    "Atan": np.arctan,
    "Sinh": np.sinh,
    "Cosh": np.cosh,
    "Asinh": np.arcsinh,
    "Acosh": np.arccosh,
    "Atanh": np.arctanh,
    "Tanh": np.tanh,
    "Erf": _erf_values,
}


def _reciprocal(x: np.ndarray) -> np.ndarray:
    return np.asarray(1 / x)


def register(kernels: KernelRegistry) -> None:
    for name, fn in _FUNCTIONS.items():
        if name == "Reciprocal":
            fn = _reciprocal
        kernels.add(name, _unary(fn, name), since=versions(name))
