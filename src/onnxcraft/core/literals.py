"""Turning literals (numpy arrays, numpy/Python scalars, nested lists) into typed constants.

A literal's element type comes from where it is used: the operator's type constraint for that
input, unified with the other inputs bound to the same constraint (``Add(x_f16, 0.5)`` makes a
float16 constant). Without such a binding the literal's own type is used when the constraint
allows it. A conversion that would change a value (1.5 into an int64 tensor, 300 into uint8)
is an error rather than a silent cast.
"""

from __future__ import annotations

from collections.abc import Set
from functools import cache
from typing import Any

import numpy as np

from onnxcraft.core.var import INITIALIZER, Var
from onnxcraft.dtypes import ElementType, as_representation, element_type_of, numpy_dtype
from onnxcraft.errors import OpAttributeError, OpInputError
from onnxcraft.types import Tensor, ValueType, shared_tensor

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


def literal_array(op: str, arg: object, value: Any, *, role: str = "input") -> np.ndarray:
    """The literal as a numpy array of an ONNX element type (strings as an object array),
    with a clear error for ragged, mixed or odd input. ``role`` names the argument's kind in
    messages ("input", "attribute")."""
    if isinstance(value, np.ndarray):
        array = np.asarray(as_representation(value))  # ml_dtypes: the same values, our dtype
    else:
        try:
            array = np.asarray(value)
        except (ValueError, TypeError, OverflowError) as exc:
            raise _error(role)(
                f"{op}: {role} {arg!r}: cannot make a tensor of {_short(value)}: {exc}"
            ) from exc
        if array.dtype.kind in "US" and not _all_text(value):
            # numpy turns [1, "a"] into ["1", "a"]: a silent change of value
            raise _error(role)(
                f"{op}: {role} {arg!r}: a literal mixes strings and numbers: {_short(value)}"
            )
    kind = array.dtype.kind
    if kind in "US":  # onnxcraft's string tensors are object arrays of str (or bytes)
        return _writable_strings(op, arg, role, array.astype(object))
    if kind == "O":
        if isinstance(value, np.ndarray) and all(
            isinstance(v, (str, bytes)) for v in value.reshape(-1)
        ):
            return _writable_strings(op, arg, role, value)
        raise _error(role)(
            f"{op}: {role} {arg!r}: expected a numeric or string literal (ints within int64 "
            f"or uint64), got {_short(value)}"
        )
    if not _has_element_type(array.dtype):
        raise _error(role)(
            f"{op}: {role} {arg!r}: numpy dtype {array.dtype} has no ONNX element type"
        )
    return array


@cache
def _has_element_type(dtype: np.dtype[Any]) -> bool:
    """Cached: every literal asks, and a program uses a handful of dtypes."""
    try:
        element_type_of(dtype)
    except (TypeError, ValueError):
        return False
    return True


@cache
def plain_elem(dtype: np.dtype[Any]) -> ElementType | None:
    """The element type whose own numpy dtype ``dtype`` is, for plain numbers (bool, integers,
    floats, complex in native byte order); None for anything :func:`literal_array` or
    :func:`convert` would change or check further (strings, objects, low-precision
    representations, other byte orders). Cached: a program uses a handful of dtypes."""
    if dtype.kind not in "biufc" or dtype.names is not None or not _has_element_type(dtype):
        return None
    elem = element_type_of(dtype)
    return elem if _numpy_dtype(elem) == dtype else None


@cache
def _numpy_dtype(elem: ElementType) -> np.dtype[Any]:
    """Cached: every literal converts to one of a handful of element types."""
    return numpy_dtype(elem)


def _error(role: str) -> type[OpInputError | OpAttributeError]:
    return OpAttributeError if role == "attribute" else OpInputError


def _writable_strings(op: str, arg: object, role: str, array: np.ndarray) -> np.ndarray:
    """Strings a model can hold: str must encode to UTF-8 (lone surrogates cannot; the
    escapes of undecodable bytes, U+DC80 to U+DCFF, stand for those bytes)."""
    for item in array.reshape(-1):
        if isinstance(item, str):
            try:
                item.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                raise _error(role)(
                    f"{op}: {role} {arg!r}: the string {item!r} cannot be written to a model "
                    f"(it is not valid UTF-8)"
                ) from None
    return array


def _all_text(value: Any) -> bool:
    """Whether every leaf of a (nested) Python literal is a str or bytes."""
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_all_text(v) for v in value)
    return False


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


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


def convert(
    op: str, arg: object, array: np.ndarray, elem: ElementType, *, role: str = "input"
) -> np.ndarray:
    """Convert a literal to ``elem``; fail when a value would change beyond float rounding
    (a non-integral or out-of-range value into an integer type, a finite value that
    overflows a float type, a complex value with an imaginary part into a real type)."""
    if elem == ElementType.STRING:
        if array.dtype != object:
            raise _error(role)(f"{op}: {role} {arg!r} expects strings, got a {array.dtype} literal")
        return array
    if array.dtype == object:
        raise _error(role)(f"{op}: {role} {arg!r} expects {elem.name.lower()}, got strings")
    try:
        target = _numpy_dtype(elem)
    except ValueError as exc:
        raise _error(role)(
            f"{op}: {role} {arg!r}: element type {elem.name} cannot hold a literal"
        ) from exc
    if array.dtype.names is not None or target.names is not None:
        # Lazy: low-precision arithmetic loads with the first such literal, not at import.
        from onnxcraft.numerics import from_float32, to_float32  # noqa: PLC0415
    if array.dtype.names is not None:  # a literal already in a low-precision representation
        if array.dtype == target:
            return array
        # Decode first: the representation's raw field holds bits, not the values.
        array = np.asarray(to_float32(array))
    if array.dtype.kind == "c" and target.kind != "c":
        if np.any(array.imag != 0):
            raise _error(role)(
                f"{op}: {role} {arg!r} expects {elem.name.lower()}, got a complex literal with "
                f"an imaginary part: {_preview(array)}"
            )
        array = array.real
    if target.names is not None:  # bfloat16, float8 ...: encode through float32
        encoded: np.ndarray = from_float32(array.astype(np.float32), elem)
        return encoded
    if target == array.dtype:
        return array
    if target.kind in "iub":
        _check_integral(f"{op}: {role} {arg!r}", _error(role), array, elem, target)
    with np.errstate(over="ignore", invalid="ignore"):
        converted = array.astype(target)
    if (
        target.kind in "fc"
        and array.dtype.kind in "fciu"
        and np.isfinite(array).all()
        and not np.isfinite(converted).all()
    ):
        raise _error(role)(
            f"{op}: {role} {arg!r}: literal {_preview(array)} overflows {elem.name.lower()} "
            f"(its largest finite value is {np.finfo(target).max})"
        )
    return converted


def _check_integral(
    where: str,
    error: type[OpInputError | OpAttributeError],
    array: np.ndarray,
    elem: ElementType,
    target: np.dtype[Any],
) -> None:
    """An integer (or bool) target takes only integral values within its range."""
    if array.dtype.kind == "f" and (
        not np.all(np.isfinite(array)) or not np.all(np.equal(np.mod(array, 1), 0))
    ):
        raise error(
            f"{where} expects {elem.name.lower()}, "
            f"got a float literal with non-integral values: {_preview(array)}"
        )
    if array.size == 0 or array.dtype.kind == "b":
        return
    low, high = (0, 1) if target.kind == "b" else (np.iinfo(target).min, np.iinfo(target).max)
    # Python ints compare exactly (uint64 against int64 bounds included).
    if int(array.min()) < low or int(array.max()) > high:
        raise error(f"{where}: literal {_preview(array)} does not fit in {elem.name.lower()}")


def _preview(array: np.ndarray) -> str:
    text = np.array2string(array.ravel()[:6], separator=", ")
    return text if array.size <= 6 else text[:-1] + ", ...]"


def lift(array: np.ndarray, elem: ElementType, scope: int) -> Var:
    """A constant Var holding ``array`` (already converted to ``elem``)."""
    # The graph keeps the data by reference (weights can be large); a read-only view stops
    # the graph's own code from writing into the user's buffer.
    view = array.view()
    view.setflags(write=False)
    # A numpy shape is a tuple of valid dims: no re-checking, and equal types share one object.
    return Var(shared_tensor(elem, array.shape), kind=INITIALIZER, value=view, scope=scope)


def allowed_elems(allowed: tuple[ValueType, ...]) -> set[ElementType]:
    return {t.elem_type for t in allowed if isinstance(t, Tensor) and t.elem_type is not None}
