"""Turning literals (numpy arrays, numpy/Python scalars, nested lists) into typed constants.

A literal's element type comes from where it is used: the operator's type constraint for that
input, unified with the other inputs bound to the same constraint (``Add(x_f16, 0.5)`` makes a
float16 constant). Without such a binding the literal's own type is used when the constraint
allows it. A conversion that would change a value (1.5 into an int64 tensor, 300 into uint8)
is an error rather than a silent cast.
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any

import numpy as np

from onnxcraft.core.var import INITIALIZER, Var
from onnxcraft.dtypes import ElementType, element_type_of, numpy_dtype
from onnxcraft.errors import OpInputError
from onnxcraft.types import Tensor, ValueType

__all__ = ["is_literal", "literal_array", "lift", "default_elem_type"]

_FLOAT_PREFERENCE = (
    ElementType.FLOAT,
    ElementType.DOUBLE,
    ElementType.FLOAT16,
    ElementType.BFLOAT16,
)
_INT_PREFERENCE = (ElementType.INT64, ElementType.INT32)


def is_literal(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic, int, float, bool, str, bytes, list, tuple))


def literal_array(op: str, arg: str, value: Any) -> np.ndarray:
    """The literal as a numpy array, with a clear error for ragged or odd input."""
    if isinstance(value, np.ndarray):
        return value
    try:
        array = np.asarray(value)
    except ValueError as exc:
        raise OpInputError(
            f"{op}: input {arg!r}: cannot make a tensor of {value!r}: {exc}"
        ) from exc
    if array.dtype == object:
        raise OpInputError(
            f"{op}: input {arg!r}: expected a numeric or string literal, got {value!r}"
        )
    if array.dtype.kind == "U":
        return array.astype(object)
    return array


def default_elem_type(
    array: np.ndarray, from_python: bool, allowed: Set[ElementType]
) -> ElementType:
    """The element type of an unbound literal: its own, or the preferred allowed one."""
    own = element_type_of(array.dtype) if array.dtype != object else ElementType.STRING
    if not from_python or not allowed:
        return own
    # Python scalars and lists carry no width: pick the customary one the operator accepts.
    options: tuple[ElementType, ...]
    if own == ElementType.DOUBLE:
        options = _FLOAT_PREFERENCE
    elif own == ElementType.INT64:
        options = _INT_PREFERENCE + _FLOAT_PREFERENCE
    else:
        options = (own,)
    for elem in options:
        if elem in allowed:
            return elem
    return own


def convert(op: str, arg: str, array: np.ndarray, elem: ElementType) -> np.ndarray:
    """Convert a literal to ``elem``; fail when a value would change (beyond float rounding)."""
    if elem == ElementType.STRING:
        if array.dtype != object:
            raise OpInputError(f"{op}: input {arg!r} expects strings, got a {array.dtype} literal")
        return array
    if array.dtype == object:
        raise OpInputError(f"{op}: input {arg!r} expects {elem.name.lower()}, got strings")
    target = numpy_dtype(elem)
    if array.dtype.names is not None or target.names is not None:
        # Lazy: low-precision arithmetic loads with the first such literal, not at import.
        from onnxcraft.numerics import from_float32, to_float32  # noqa: PLC0415
    if array.dtype.names is not None:  # a literal already in a low-precision representation
        if array.dtype == target:
            return array
        # Decode first: the representation's raw field holds bits, not the values.
        array = np.asarray(to_float32(array))
    if target.names is not None:  # bfloat16, float8 ...: encode through float32
        encoded: np.ndarray = from_float32(array.astype(np.float32), elem)
        return encoded
    if target == array.dtype:
        return array
    integral = target.kind in "iub"
    if (
        integral
        and array.dtype.kind in "fc"
        and (not np.all(np.isfinite(array)) or not np.all(np.equal(np.mod(array, 1), 0)))
    ):
        raise OpInputError(
            f"{op}: input {arg!r} expects {elem.name.lower()}, "
            f"got a float literal with non-integral values: {_preview(array)}"
        )
    with np.errstate(over="ignore"):
        converted = array.astype(target)
    if (
        target.kind in "fc"
        and array.dtype.kind in "fciu"
        and np.isfinite(array).all()
        and not np.isfinite(converted).all()
    ):
        raise OpInputError(
            f"{op}: input {arg!r}: literal {_preview(array)} overflows {elem.name.lower()} "
            f"(its largest finite value is {np.finfo(target).max})"
        )
    if (
        integral
        and array.dtype.kind in "iubf"
        and (not np.array_equal(converted.astype(array.dtype), array))
    ):
        raise OpInputError(
            f"{op}: input {arg!r}: literal {_preview(array)} does not fit in {elem.name.lower()}"
        )
    return converted


def _preview(array: np.ndarray) -> str:
    text = np.array2string(array.ravel()[:6], separator=", ")
    return text if array.size <= 6 else text[:-1] + ", ...]"


def lift(array: np.ndarray, elem: ElementType, scope: int) -> Var:
    """A constant Var holding ``array`` (already converted to ``elem``)."""
    # The graph keeps the data by reference (weights can be large); a read-only view stops
    # the graph's own code from writing into the user's buffer.
    view = array.view()
    view.flags.writeable = False
    return Var(Tensor(elem, array.shape), kind=INITIALIZER, value=view, scope=scope)


def allowed_elems(allowed: tuple[ValueType, ...]) -> set[ElementType]:
    return {t.elem_type for t in allowed if isinstance(t, Tensor) and t.elem_type is not None}
