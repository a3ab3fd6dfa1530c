"""Kernels for Cast and CastLike.

Numeric casts follow C: floats truncate toward zero into integers, integers wrap. Strings are
parsed as numbers (``"NaN"``, ``"INF"``, ``"-inf"``, exponents) and numbers are formatted with
the shortest representation that reads back to the same value. Casts to and from the
low-precision types go through :mod:`onnxcraft.numerics`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft import numerics
from onnxcraft.dtypes import ElementType, element_type_of, numpy_dtype
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import fail, is_lowp
from onnxcraft.ops.versions import versions

__all__ = ["cast_array", "register"]


def _parse(text: str, dtype: np.dtype[Any]) -> Any:
    stripped = text.strip()
    if dtype.kind == "b":
        lowered = stripped.lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        return float(stripped) != 0
    if dtype.kind in "iu":
        try:
            return int(stripped)
        except ValueError:
            return int(float(stripped))
    return float(stripped)


def _format(value: Any) -> str:
    if isinstance(value, (np.floating, float)):
        if np.isnan(value):
            return "NaN"
        if np.isinf(value):
            return "INF" if value > 0 else "-INF"
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    return str(value)


def cast_array(
    x: np.ndarray, elem: ElementType, *, saturate: int = 1, round_mode: str = "up"
) -> np.ndarray:
    """``x`` cast to element type ``elem`` with the Cast operator's rules."""
    source_lowp = is_lowp(x)
    target = numpy_dtype(elem)
    if source_lowp or target.names is not None:
        return np.asarray(numerics.cast(x, elem, saturate=bool(saturate), round_mode=round_mode))
    if elem == ElementType.STRING:
        out = np.empty(x.shape, dtype=object)
        out.reshape(-1)[:] = [_format(v) for v in x.reshape(-1)]
        return out
    if x.dtype == object:
        try:
            values = [_parse(str(v), target) for v in x.reshape(-1)]
        except ValueError as exc:
            fail("Cast", f"cannot parse a string as {elem.name.lower()}: {exc}")
        return np.asarray(values, dtype=target if target.kind != "b" else bool).reshape(x.shape)
    with np.errstate(all="ignore"):
        if target.kind in "iu" and x.dtype.kind == "f":
            return np.asarray(np.trunc(x).astype(target))
        return x.astype(target)


def _target(to: int | str | bytes) -> ElementType:
    """The element type ``to`` names: Cast-1 names it as a string ("FLOAT"), later versions
    by number."""
    if isinstance(to, bytes):
        to = to.decode()
    try:
        elem = ElementType[to.upper()] if isinstance(to, str) else ElementType(int(to))
    except (KeyError, ValueError):
        elem = ElementType.UNDEFINED
    if elem == ElementType.UNDEFINED:
        expected = "a type name such as 'FLOAT'" if isinstance(to, str) else "an element type"
        fail("Cast", f"attribute 'to' must be {expected}, got {to!r}")
    return elem


def cast(x: Any, *, to: int | str | bytes, saturate: int = 1, round_mode: str = "up") -> np.ndarray:
    elem = _target(to)
    return cast_array(np.asarray(x), elem, saturate=saturate, round_mode=round_mode)


def cast_like(x: Any, like: Any, *, saturate: int = 1, round_mode: str = "up") -> np.ndarray:
    like = np.asarray(like)
    elem = element_type_of(like.dtype)
    return cast_array(np.asarray(x), elem, saturate=saturate, round_mode=round_mode)


def register(kernels: KernelRegistry) -> None:
    kernels.add("Cast", cast, since=versions("Cast"))
    kernels.add("CastLike", cast_like, since=versions("CastLike"))
