"""How far one value is from its reference: the largest absolute, relative and ULP error, and
how many elements lie beyond the tolerance.

Values are compared in float64 (integers exactly, as Python ints where float64 would round).
Two NaNs at one place agree, as do two infinities of one sign; a NaN or an infinity against
anything else is an infinite error. The relative error divides by the reference's magnitude
(0 against 0 is no error, anything else against 0 is infinite). The error in units of the last
place (ULP) counts the gaps between neighbouring numbers of the element type of the value under
test at the reference's magnitude: float32 values against a float64 reference are measured in
float32 ULPs, which is what "how much of this is float32 rounding" asks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of, type_string
from onnxcraft.numerics import to_float32

__all__ = ["Tolerance", "ValueDiff", "default_tolerance", "measure"]

_FLOAT_TYPES = {ElementType.FLOAT, ElementType.DOUBLE, ElementType.FLOAT16}
# (explicit mantissa bits, smallest normal exponent) of the float formats numpy lacks: their
# ULP at x is 2 ** (max(exponent of x, smallest normal exponent) - mantissa bits).
_SMALL_FLOATS: dict[ElementType, tuple[int, int]] = {
    ElementType.BFLOAT16: (7, -126),
    ElementType.FLOAT8E4M3FN: (3, -6),
    ElementType.FLOAT8E4M3FNUZ: (3, -7),
    ElementType.FLOAT8E5M2: (2, -14),
    ElementType.FLOAT8E5M2FNUZ: (2, -15),
    ElementType.FLOAT6E2M3: (3, 0),
    ElementType.FLOAT6E3M2: (2, -2),
    ElementType.FLOAT4E2M1: (1, 0),
    ElementType.FLOAT8E8M0: (0, -127),
}


@dataclass(frozen=True)
class Tolerance:
    """An element agrees when ``|actual - reference| <= atol + rtol * |reference|``."""

    rtol: float
    atol: float


# Defaults by the element type of the value under test: a few rounding steps of a deep graph
# for the floats, exact for everything else.
_DEFAULT_TOLERANCE: dict[ElementType, Tolerance] = {
    ElementType.DOUBLE: Tolerance(1e-9, 1e-12),
    ElementType.FLOAT: Tolerance(1e-4, 1e-5),
    ElementType.FLOAT16: Tolerance(1e-2, 1e-3),
    ElementType.BFLOAT16: Tolerance(4e-2, 1e-2),
    ElementType.COMPLEX64: Tolerance(1e-4, 1e-5),
    ElementType.COMPLEX128: Tolerance(1e-9, 1e-12),
}
_FLOAT8_TOLERANCE = Tolerance(0.25, 0.125)
_EXACT = Tolerance(0.0, 0.0)


def default_tolerance(elem: ElementType | None) -> Tolerance:
    """The tolerance used for values of element type ``elem`` when none is given."""
    if elem is None:
        return _EXACT
    if elem in _DEFAULT_TOLERANCE:
        return _DEFAULT_TOLERANCE[elem]
    if elem in _SMALL_FLOATS:
        return _FLOAT8_TOLERANCE
    return _EXACT


@dataclass
class ValueDiff:
    """The comparison of one value of the graph with its reference."""

    name: str
    kind: str  # "input", "initializer", "node output" or "output"
    producer: str  # the node that computes it ("" for inputs and initializers)
    type: str  # element type and shape of the value under test, "float[2, 3]"
    max_abs: float
    max_rel: float
    max_ulp: float | None  # None where a ULP means nothing (strings, complex numbers)
    mismatched: int  # elements beyond the tolerance
    size: int
    tolerance: Tolerance
    note: str = ""  # why the values cannot be compared element by element

    @property
    def agrees(self) -> bool:
        return self.mismatched == 0 and not self.note

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "producer": self.producer,
            "type": self.type,
            "max_abs": _json_number(self.max_abs),
            "max_rel": _json_number(self.max_rel),
            "max_ulp": None if self.max_ulp is None else _json_number(self.max_ulp),
            "mismatched": self.mismatched,
            "size": self.size,
            "rtol": self.tolerance.rtol,
            "atol": self.tolerance.atol,
            "agrees": self.agrees,
            "note": self.note,
        }


def _json_number(value: float) -> float | str:
    """JSON has no infinity or NaN: those are written as strings."""
    return value if math.isfinite(value) else str(value)


@dataclass(frozen=True)
class _Errors:
    max_abs: float
    max_rel: float
    max_ulp: float | None
    mismatched: int
    size: int
    note: str = ""


def _element_type(array: np.ndarray) -> ElementType | None:
    try:
        return element_type_of(array.dtype)
    except (TypeError, ValueError):
        return None


def _type_text(value: Any) -> str:
    if isinstance(value, np.ndarray):
        elem = _element_type(value)
        name = type_string(elem) if elem is not None else str(value.dtype)
        return f"{name}[{', '.join(str(d) for d in value.shape)}]"
    if isinstance(value, list):
        return f"seq[{len(value)}]"
    if isinstance(value, dict):
        return f"map[{len(value)}]"
    if value is None:
        return "none"
    return type(value).__name__


def _as_float64(array: np.ndarray) -> np.ndarray:
    if array.dtype.names is not None:  # a low-precision type held as its bits
        return to_float32(array).astype(np.float64)
    return array.astype(np.float64)


def _ulp(reference: np.ndarray, elem: ElementType | None) -> np.ndarray | None:
    """The gap between neighbouring numbers of type ``elem`` at each reference value."""
    magnitude = np.abs(reference)
    if elem in _FLOAT_TYPES:
        native = {ElementType.FLOAT: np.float32, ElementType.FLOAT16: np.float16}.get(
            elem, np.float64
        )
        with np.errstate(over="ignore", invalid="ignore"):
            gaps = np.spacing(magnitude.astype(native)).astype(np.float64)
        largest = float(np.finfo(native).max)
        return np.where(magnitude > largest, np.inf, gaps)
    if elem in _SMALL_FLOATS:
        mantissa, smallest = _SMALL_FLOATS[elem]
        with np.errstate(divide="ignore"):
            exponent = np.floor(np.log2(np.where(magnitude > 0, magnitude, 1.0)))
        exponent = np.where(magnitude > 0, np.maximum(exponent, smallest), smallest)
        return np.asarray(np.ldexp(1.0, (exponent - mantissa).astype(np.int64)))
    return None


def _numeric_errors(
    actual: np.ndarray, reference: np.ndarray, elem: ElementType | None, tol: Tolerance
) -> _Errors:
    a = _as_float64(actual)
    b = _as_float64(reference)
    same_special = (np.isnan(a) & np.isnan(b)) | (np.isinf(a) & (a == b))
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(same_special, 0.0, np.abs(a - b))
    diff = np.where(np.isnan(diff), np.inf, diff)
    magnitude = np.abs(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(diff == 0, 0.0, diff / magnitude)
    rel = np.where(np.isnan(rel), np.inf, rel)
    ulps = _ulp(b, elem)
    integers = actual.dtype.kind in "iub" and reference.dtype.kind in "iub"
    if integers:
        diff = np.abs(actual.astype(object) - reference.astype(object)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        # an infinite error is beyond any tolerance, an infinite reference's included
        beyond = (diff > tol.atol + tol.rtol * magnitude) | np.isinf(diff)
    max_ulp: float | None
    if integers:
        max_ulp = _largest(diff)
    elif ulps is None:
        max_ulp = None
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            units = np.where(diff == 0, 0.0, diff / ulps)
        max_ulp = _largest(np.where(np.isnan(units), np.inf, units))
    return _Errors(_largest(diff), _largest(rel), max_ulp, int(np.count_nonzero(beyond)), a.size)


def _largest(values: np.ndarray) -> float:
    return float(values.max()) if values.size else 0.0


def _complex_errors(actual: np.ndarray, reference: np.ndarray, tol: Tolerance) -> _Errors:
    a = actual.astype(np.complex128)
    b = reference.astype(np.complex128)
    diff = np.abs(a - b)
    diff = np.where(np.isnan(diff), np.inf, diff)
    magnitude = np.abs(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(diff == 0, 0.0, diff / magnitude)
    with np.errstate(invalid="ignore"):
        beyond = (diff > tol.atol + tol.rtol * magnitude) | np.isinf(diff)
    return _Errors(_largest(diff), _largest(rel), None, int(np.count_nonzero(beyond)), a.size)


def _array_errors(actual: np.ndarray, reference: np.ndarray, tol: Tolerance) -> _Errors:
    if actual.shape != reference.shape:
        return _Errors(
            math.inf,
            math.inf,
            None,
            max(actual.size, reference.size),
            actual.size,
            f"shapes differ: {list(actual.shape)} against {list(reference.shape)}",
        )
    kinds = {actual.dtype.kind, reference.dtype.kind}
    if "O" in kinds or "U" in kinds or "S" in kinds:
        unequal = int(np.count_nonzero(actual != reference)) if actual.size else 0
        worst = math.inf if unequal else 0.0
        return _Errors(worst, worst, None, unequal, actual.size)
    if "c" in kinds:
        return _complex_errors(actual, reference, tol)
    return _numeric_errors(actual, reference, _element_type(actual), tol)


def _parts(value: Any) -> list[Any] | None:
    """The arrays of a value, in order (a sequence's elements, a map's values by key)."""
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [value[key] for key in sorted(value, key=str)]
    return None


def _errors(actual: Any, reference: Any, tol: Tolerance) -> _Errors:
    if isinstance(actual, np.generic) or isinstance(reference, np.generic):
        return _errors(np.asarray(actual), np.asarray(reference), tol)
    if actual is None or reference is None:
        agree = actual is None and reference is None
        return _Errors(0.0 if agree else math.inf, 0.0, None, 0, 0, "" if agree else "one is None")
    if isinstance(actual, np.ndarray) and isinstance(reference, np.ndarray):
        return _array_errors(actual, reference, tol)
    if isinstance(actual, dict) and isinstance(reference, dict) and set(actual) != set(reference):
        return _Errors(math.inf, math.inf, None, 0, len(actual), "map keys differ")
    mine, theirs = _parts(actual), _parts(reference)
    if mine is None or theirs is None or type(actual) is not type(reference):
        note = f"kinds differ: {_type_text(actual)} against {_type_text(reference)}"
        return _Errors(math.inf, math.inf, None, 0, 0, note)
    if len(mine) != len(theirs):
        note = f"lengths differ: {len(mine)} against {len(theirs)}"
        return _Errors(math.inf, math.inf, None, 0, len(mine), note)
    found = [_errors(m, t, tol) for m, t in zip(mine, theirs)]
    ulps = [e.max_ulp for e in found if e.max_ulp is not None]
    return _Errors(
        max((e.max_abs for e in found), default=0.0),
        max((e.max_rel for e in found), default=0.0),
        max(ulps) if ulps else None,
        sum(e.mismatched for e in found),
        sum(e.size for e in found),
        next((e.note for e in found if e.note), ""),
    )


def _first_array(value: Any) -> np.ndarray | None:
    parts = _parts(value)
    while parts:
        head = parts[0]
        if isinstance(head, np.ndarray):
            return head
        parts = _parts(head)
    return None


def measure(
    name: str,
    actual: Any,
    reference: Any,
    *,
    kind: str,
    producer: str,
    rtol: float | None,
    atol: float | None,
) -> ValueDiff:
    """Compare ``actual`` (the model under test) with ``reference``; a tolerance not given is
    the default of the element type of ``actual``."""
    array = _first_array(actual)
    elem = _element_type(array) if array is not None else None
    base = default_tolerance(elem)
    tol = Tolerance(base.rtol if rtol is None else rtol, base.atol if atol is None else atol)
    found = _errors(actual, reference, tol)
    return ValueDiff(
        name=name,
        kind=kind,
        producer=producer,
        type=_type_text(actual),
        max_abs=found.max_abs,
        max_rel=found.max_rel,
        max_ulp=found.max_ulp,
        mismatched=found.mismatched,
        size=found.size,
        tolerance=tol,
        note=found.note,
    )
