"""Hypothesis strategies for ONNX values, drawn from what the operator specs allow.

In the style of ``hypothesis.extra.numpy``: every strategy accepts a value or a strategy where
that makes sense, options are keyword-only, and arguments are validated when the strategy is
created (``hypothesis.errors.InvalidArgument`` naming the argument, what was expected and what
came). Element types are :class:`onnxcraft.ElementType`; arrays use onnxcraft's numpy
representation, including the low-precision types numpy lacks (see :mod:`onnxcraft.dtypes`).

    element_types("T", spec=spec)        the element types a type constraint allows
    arrays(ElementType.FLOAT8E4M3FN, (2, 3), min_value=-4, max_value=4)
    broadcastable_shapes(3)              shapes that broadcast together, and their result
    valid_axes(rank, min_size=1)         distinct axes, some negative
    attribute_values(attr_spec)          a value of an AttributeSpec's type
    values(oc.Sequence(oc.Tensor(np.float32, None)))   tensors, sequences, optionals, maps

The module sits in the ops kit because the operator recipes (``ops/<family>/recipes.py``) draw
with it; users import it as :mod:`onnxcraft.testing.strategies`, which re-exports it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import cache
from typing import Any, Literal, NamedTuple

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.extra import numpy as hnp

from onnxcraft.dtypes import ElementType, element_type_of, numpy_dtype, storage_dtype, type_string
from onnxcraft.numerics import to_float32
from onnxcraft.specs.model import AttributeSpec, OpSpec
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType

__all__ = [
    "ALL_ELEMENT_TYPES",
    "BroadcastableShapes",
    "allowed_types",
    "array_shapes",
    "arrays",
    "attribute_values",
    "broadcastable_shapes",
    "element_types",
    "elements",
    "parse_type",
    "valid_axes",
    "valid_axis",
    "value_types",
    "values",
]

SearchStrategy = st.SearchStrategy

ALL_ELEMENT_TYPES: tuple[ElementType, ...] = tuple(
    e for e in ElementType if e != ElementType.UNDEFINED
)

_FLOAT_WIDTHS: dict[ElementType, Literal[16, 32, 64]] = {
    ElementType.FLOAT16: 16,
    ElementType.FLOAT: 32,
    ElementType.DOUBLE: 64,
}
_LARGEST_FLOAT = {
    16: float(np.finfo(np.float16).max),
    32: float(np.finfo(np.float32).max),
    64: float(np.finfo(np.float64).max),
}
_COMPLEX_WIDTHS: dict[ElementType, Literal[64, 128]] = {
    ElementType.COMPLEX64: 64,
    ElementType.COMPLEX128: 128,
}
_SMALL_INT_RANGES = {
    ElementType.INT4: (-8, 7),
    ElementType.UINT4: (0, 15),
    ElementType.INT2: (-2, 1),
    ElementType.UINT2: (0, 3),
}
_CODE_BITS = {
    ElementType.BFLOAT16: 16,
    ElementType.FLOAT8E4M3FN: 8,
    ElementType.FLOAT8E4M3FNUZ: 8,
    ElementType.FLOAT8E5M2: 8,
    ElementType.FLOAT8E5M2FNUZ: 8,
    ElementType.FLOAT8E8M0: 8,
    ElementType.FLOAT4E2M1: 4,
    ElementType.FLOAT6E2M3: 6,
    ElementType.FLOAT6E3M2: 6,
}
_DEFAULT_ALPHABET = st.characters(codec="utf-8", exclude_categories=["Cs"])


# -- argument checking ----------------------------------------------------------------------------


def _strategy(value: Any) -> SearchStrategy[Any]:
    """A strategy as is; any other value as the strategy that always gives it."""
    return value if isinstance(value, SearchStrategy) else st.just(value)


def _check_int(name: str, value: Any, *, minimum: int | None = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidArgument(f"{name}: expected an int, got {value!r}")
    if minimum is not None and value < minimum:
        raise InvalidArgument(f"{name}: expected an int >= {minimum}, got {value}")
    return int(value)


def _check_range(low_name: str, low: Any, high_name: str, high: Any) -> None:
    if low is not None and high is not None and low > high:
        raise InvalidArgument(f"{low_name}={low!r} must not exceed {high_name}={high!r}")


def _as_element_type(value: Any, name: str = "elem_type") -> ElementType:
    try:
        elem = element_type_of(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(
            f"{name}: expected an ElementType, numpy dtype or type name, got {value!r}"
        ) from exc
    if elem == ElementType.UNDEFINED:
        raise InvalidArgument(f"{name}: UNDEFINED is not an element type of any value")
    return elem


def _check_shape(value: Any, name: str = "shape") -> tuple[int, ...]:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (value,)
    if not isinstance(value, (tuple, list)):
        raise InvalidArgument(f"{name}: expected a tuple of ints >= 0, got {value!r}")
    return tuple(_check_int(f"{name}[{i}]", d) for i, d in enumerate(value))


# -- type strings and constraints -----------------------------------------------------------------


@cache
def parse_type(text: str) -> ValueType:
    """A spec type string as a value type (shape unknown).

    Besides ``tensor(float)``, ``seq(...)``, ``optional(...)`` and ``map(k, tensor(v))`` this
    reads the ML domain's ``map(string, float)``, whose values are scalars of that element type.
    """
    compact = text.replace(" ", "")
    parsed, rest = _parse_type(compact, text)
    if rest:
        raise InvalidArgument(f"type string {text!r}: unexpected trailing text {rest!r}")
    return parsed


def _parse_type(text: str, whole: str) -> tuple[ValueType, str]:
    head, open_paren, rest = text.partition("(")
    if not open_paren:
        # A bare element type: only the ML domain writes map values this way.
        end = text.find(")")
        end = len(text) if end < 0 else end
        return Tensor(_element_from_name(text[:end], whole), ()), text[end:]
    if head in ("tensor", "sparse_tensor"):
        name, _, rest = rest.partition(")")
        elem = _element_from_name(name, whole)
        return (Tensor(elem) if head == "tensor" else SparseTensor(elem)), rest
    if head in ("seq", "sequence", "optional"):
        inner, rest = _parse_type(rest, whole)
        rest = _expect_close(rest, whole)
        return (Optional(inner) if head == "optional" else Sequence(inner)), rest
    if head == "map":
        key, comma, rest = rest.partition(",")
        if not comma:
            raise InvalidArgument(f"type string {whole!r}: a map needs a key and a value type")
        inner, rest = _parse_type(rest, whole)
        rest = _expect_close(rest, whole)
        return Map(_element_from_name(key, whole), inner), rest
    raise InvalidArgument(f"type string {whole!r}: unknown kind {head!r}")


def _expect_close(rest: str, whole: str) -> str:
    if not rest.startswith(")"):
        raise InvalidArgument(f"type string {whole!r}: missing ')'")
    return rest[1:]


def _element_from_name(name: str, whole: str) -> ElementType:
    try:
        return element_type_of(name)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"type string {whole!r}: unknown element type {name!r}") from exc


def allowed_types(spec: OpSpec, type_param: str) -> tuple[str, ...]:
    """The type strings a formal's type (``"T"`` or a fixed ``"tensor(int64)"``) allows."""
    for constraint in spec.type_constraints:
        if constraint.name == type_param:
            return constraint.allowed
    if "(" in type_param:
        return (type_param,)
    known = [c.name for c in spec.type_constraints]
    raise InvalidArgument(
        f"{spec.name}-{spec.since_version}: no type constraint {type_param!r}; "
        f"the spec defines {known}"
    )


def _allowed_element_types(allowed: Any, spec: OpSpec | None) -> tuple[ElementType, ...]:
    if isinstance(allowed, str):
        if "(" not in allowed and spec is None:
            try:
                return (_as_element_type(allowed, "allowed"),)
            except InvalidArgument:
                raise InvalidArgument(
                    f"allowed={allowed!r} looks like a type parameter; pass spec= to resolve it"
                ) from None
        strings: Iterable[Any] = allowed_types(spec, allowed) if spec is not None else (allowed,)
    else:
        strings = allowed
    result: list[ElementType] = []
    for item in strings:
        if isinstance(item, str) and "(" in item:
            parsed = parse_type(item)
            if type(parsed) is Tensor and parsed.elem_type is not None:
                result.append(parsed.elem_type)
        else:
            result.append(_as_element_type(item, "allowed"))
    return tuple(dict.fromkeys(result))


def element_types(
    allowed: str | Iterable[Any] = ALL_ELEMENT_TYPES,
    *,
    spec: OpSpec | None = None,
    exclude: Iterable[Any] = (),
) -> SearchStrategy[ElementType]:
    """Element types of the tensors ``allowed`` admits.

    ``allowed`` is a type parameter of ``spec`` (``"T"``), one type string
    (``"tensor(float)"``) or an iterable of type strings, element types or dtypes; non-tensor
    type strings (``seq(...)``) are ignored. ``exclude`` removes element types.
    """
    if spec is not None and not isinstance(spec, OpSpec):
        raise InvalidArgument(f"spec: expected an OpSpec, got {type(spec).__name__}")
    choices = _allowed_element_types(allowed, spec)
    removed = {_as_element_type(e, "exclude") for e in exclude}
    remaining = [e for e in choices if e not in removed]
    if not remaining:
        raise InvalidArgument(
            f"element_types: no tensor element type left from allowed={allowed!r} "
            f"after exclude={sorted(e.name for e in removed)}"
        )
    return st.sampled_from(remaining)


def value_types(
    allowed: str | Iterable[str], *, spec: OpSpec | None = None
) -> SearchStrategy[ValueType]:
    """Value types (shape unknown) of the type strings ``allowed`` names, tensors or not."""
    if isinstance(allowed, str):
        strings: tuple[str, ...] = allowed_types(spec, allowed) if spec is not None else (allowed,)
    else:
        strings = tuple(allowed)
    if not strings:
        raise InvalidArgument("value_types: allowed must name at least one type")
    return st.sampled_from([parse_type(s) for s in strings])


# -- elements and arrays --------------------------------------------------------------------------


def _fit_float_bound(value: float, width: int, *, upward: bool) -> float:
    """``value`` rounded inward to a float of ``width`` bits (hypothesis needs exact bounds)."""
    dtype = np.dtype(f"float{width}")
    with np.errstate(over="ignore"):  # a bound beyond the type's range becomes its largest
        fitted = np.asarray(value).astype(dtype)
    if np.isinf(fitted) and math.isfinite(value):
        return _LARGEST_FLOAT[width] * (1 if value > 0 else -1)
    direction = np.asarray(np.inf if upward else -np.inf).astype(dtype)
    if (upward and float(fitted) < value) or (not upward and float(fitted) > value):
        fitted = np.nextafter(fitted, direction)
    return float(fitted)


def elements(
    elem_type: Any,
    *,
    min_value: float | None = None,
    max_value: float | None = None,
    allow_nan: bool = False,
    allow_infinity: bool = False,
    alphabet: SearchStrategy[str] | None = None,
    max_string_size: int = 4,
) -> SearchStrategy[Any]:
    """Scalars of a numpy-native element type within the bounds (strings: short text).

    For the low-precision types (which have no numpy scalar) use :func:`arrays`.
    """
    elem = _as_element_type(elem_type)
    _check_range("min_value", min_value, "max_value", max_value)
    if elem in _FLOAT_WIDTHS:
        width = _FLOAT_WIDTHS[elem]
        low = None if min_value is None else _fit_float_bound(min_value, width, upward=True)
        high = None if max_value is None else _fit_float_bound(max_value, width, upward=False)
        return st.floats(low, high, allow_nan=allow_nan, allow_infinity=allow_infinity, width=width)
    if elem in _COMPLEX_WIDTHS:
        bounds = [abs(b) for b in (min_value, max_value) if b is not None]
        magnitude = max(bounds) if bounds else None
        return st.complex_numbers(
            max_magnitude=magnitude,
            allow_nan=allow_nan,
            allow_infinity=allow_infinity if magnitude is None else False,
            width=_COMPLEX_WIDTHS[elem],
        )
    if elem == ElementType.BOOL:
        return st.booleans()
    if elem == ElementType.STRING:
        return st.text(alphabet or _DEFAULT_ALPHABET, max_size=max_string_size)
    dtype = numpy_dtype(elem)
    if dtype.names is None and dtype.kind in "iu":
        info = np.iinfo(dtype)
        low_int = info.min if min_value is None else max(info.min, math.ceil(min_value))
        high_int = info.max if max_value is None else min(info.max, math.floor(max_value))
        if low_int > high_int:
            raise InvalidArgument(
                f"elements: no {type_string(elem)} value lies in [{min_value}, {max_value}]"
            )
        return st.integers(int(low_int), int(high_int))
    raise InvalidArgument(
        f"elements: {type_string(elem)} has no numpy scalar; draw arrays of it with arrays()"
    )


@cache
def _lowp_codes(
    elem: ElementType,
    min_value: float | None,
    max_value: float | None,
    allow_nan: bool,
    allow_infinity: bool,
) -> tuple[int, ...]:
    """The storage codes of a low-precision type whose values satisfy the bounds."""
    dtype = numpy_dtype(elem)
    storage = storage_dtype(elem)
    if elem in _SMALL_INT_RANGES:
        low, high = _SMALL_INT_RANGES[elem]
        codes = np.arange(low, high + 1, dtype=np.int64)
    else:
        codes = np.arange(1 << _CODE_BITS[elem], dtype=np.int64)
    with np.errstate(invalid="ignore", over="ignore"):  # NaN and infinity codes decode loudly
        decoded = to_float32(codes.astype(storage).view(dtype)).astype(np.float64)
    keep = np.ones(codes.shape, dtype=bool)
    nan = np.isnan(decoded)
    keep &= allow_nan | ~nan
    keep &= allow_infinity | ~np.isinf(decoded)
    if min_value is not None:
        keep &= nan | (decoded >= min_value)
    if max_value is not None:
        keep &= nan | (decoded <= max_value)
    return tuple(int(c) for c in codes[keep])


def _lowp_arrays(
    elem: ElementType,
    shape: tuple[int, ...],
    min_value: float | None,
    max_value: float | None,
    allow_nan: bool,
    allow_infinity: bool,
    unique: bool,
) -> SearchStrategy[np.ndarray]:
    codes = _lowp_codes(elem, min_value, max_value, allow_nan, allow_infinity)
    if not codes:
        raise InvalidArgument(
            f"arrays: no {type_string(elem)} value lies in [{min_value}, {max_value}]"
        )
    dtype = numpy_dtype(elem)
    storage = storage_dtype(elem)
    # Like hypothesis' floats, favour the edges (zeros, extremes, NaN, infinities) a little.
    special = _special_codes(elem, codes)
    elements = (
        st.sampled_from(codes)
        if not special
        else (st.sampled_from(special) | st.sampled_from(codes))
    )
    return hnp.arrays(storage, shape, elements=elements, unique=unique).map(
        lambda bits: bits.copy(order="C").view(dtype)
    )


@cache
def _special_codes(elem: ElementType, codes: tuple[int, ...]) -> tuple[int, ...]:
    """The codes among ``codes`` worth drawing often: zeros, extremes, NaN and infinities."""
    dtype = numpy_dtype(elem)
    storage = storage_dtype(elem)
    array = np.asarray(codes, dtype=np.int64)
    with np.errstate(invalid="ignore", over="ignore"):
        values = to_float32(array.astype(storage).view(dtype)).astype(np.float64)
    finite = values[np.isfinite(values)]
    kinds = [np.isnan(values), values == np.inf, values == -np.inf, values == 0]
    if finite.size:
        kinds += [values == finite.min(), values == finite.max()]
    # one code of each kind (the first zero is +0, a sign bit comes later in the code order)
    return tuple(int(array[kind][0]) for kind in kinds if kind.any())


def arrays(
    elem_type: Any,
    shape: Any,
    *,
    min_value: float | None = None,
    max_value: float | None = None,
    allow_nan: bool = False,
    allow_infinity: bool = False,
    unique: bool = False,
    elements_strategy: SearchStrategy[Any] | None = None,
) -> SearchStrategy[np.ndarray]:
    """Arrays of any ONNX element type, in onnxcraft's numpy representation.

    ``elem_type`` and ``shape`` may be values or strategies. Values lie in
    ``[min_value, max_value]`` (for the low-precision types: exactly representable ones);
    NaN and infinities only when allowed. ``elements_strategy`` replaces the element strategy
    of a numpy-native type.
    """
    _check_range("min_value", min_value, "max_value", max_value)
    if elements_strategy is not None and not isinstance(elements_strategy, SearchStrategy):
        raise InvalidArgument(
            f"elements_strategy: expected a SearchStrategy, got {elements_strategy!r}"
        )
    if not isinstance(elem_type, SearchStrategy):
        elem_type = _as_element_type(elem_type)
    if not isinstance(shape, SearchStrategy):
        shape = _check_shape(shape)

    def for_type_and_shape(pair: tuple[Any, Any]) -> SearchStrategy[np.ndarray]:
        elem = _as_element_type(pair[0])
        dims = _check_shape(pair[1])
        if numpy_dtype(elem).names is not None:
            if elements_strategy is not None:
                raise InvalidArgument(
                    f"arrays: elements_strategy is not supported for {type_string(elem)}"
                )
            return _lowp_arrays(elem, dims, min_value, max_value, allow_nan, allow_infinity, unique)
        strategy = elements_strategy or elements(
            elem,
            min_value=min_value,
            max_value=max_value,
            allow_nan=allow_nan,
            allow_infinity=allow_infinity,
        )
        return hnp.arrays(numpy_dtype(elem), dims, elements=strategy, unique=unique)

    return st.tuples(_strategy(elem_type), _strategy(shape)).flatmap(for_type_and_shape)


# -- shapes and axes ------------------------------------------------------------------------------


def array_shapes(
    *, min_dims: int = 0, max_dims: int = 4, min_side: int = 0, max_side: int = 4
) -> SearchStrategy[tuple[int, ...]]:
    """Small shapes; unlike hypothesis' default, rank 0 and empty dims are included."""
    _check_int("min_dims", min_dims)
    _check_int("max_dims", max_dims)
    _check_int("min_side", min_side)
    _check_int("max_side", max_side)
    _check_range("min_dims", min_dims, "max_dims", max_dims)
    _check_range("min_side", min_side, "max_side", max_side)
    return hnp.array_shapes(
        min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side
    )


class BroadcastableShapes(NamedTuple):
    """Input shapes that broadcast together (numpy rules) and the shape they broadcast to."""

    input_shapes: tuple[tuple[int, ...], ...]
    result_shape: tuple[int, ...]


def broadcastable_shapes(
    num_shapes: int,
    *,
    min_dims: int = 0,
    max_dims: int = 4,
    min_side: int = 0,
    max_side: int = 4,
    base_shape: tuple[int, ...] = (),
) -> SearchStrategy[BroadcastableShapes]:
    """``num_shapes`` shapes that broadcast together, and their broadcast result."""
    _check_int("num_shapes", num_shapes, minimum=1)
    _check_int("min_dims", min_dims)
    _check_int("max_dims", max_dims)
    _check_int("min_side", min_side)
    _check_int("max_side", max_side)
    _check_range("min_dims", min_dims, "max_dims", max_dims)
    _check_range("min_side", min_side, "max_side", max_side)
    base = _check_shape(base_shape, "base_shape")
    strategy = hnp.mutually_broadcastable_shapes(
        num_shapes=num_shapes,
        base_shape=base,
        min_dims=min_dims,
        max_dims=max_dims,
        min_side=min_side,
        max_side=max_side,
    )
    return strategy.map(
        lambda found: BroadcastableShapes(tuple(found.input_shapes), tuple(found.result_shape))
    )


def valid_axis(rank: int, *, allow_negative: bool = True) -> SearchStrategy[int]:
    """One axis of a tensor of ``rank`` (``rank >= 1``), negative ones included if allowed."""
    _check_int("rank", rank, minimum=1)
    return st.integers(-rank if allow_negative else 0, rank - 1)


def valid_axes(
    rank: int,
    *,
    min_size: int = 0,
    max_size: int | None = None,
    allow_negative: bool = True,
) -> SearchStrategy[tuple[int, ...]]:
    """Distinct axes of a tensor of ``rank``, each maybe written as a negative axis."""
    _check_int("rank", rank)
    _check_int("min_size", min_size)
    if max_size is not None:
        _check_int("max_size", max_size)
        _check_range("min_size", min_size, "max_size", max_size)
    if min_size > rank:
        raise InvalidArgument(f"min_size={min_size} exceeds the rank {rank}: axes are distinct")
    # hypothesis writes some axes negative already: start from the non-negative form
    axes = hnp.valid_tuple_axes(rank, min_size=min_size, max_size=max_size).map(
        lambda chosen: tuple(a % rank for a in chosen)
    )
    if not allow_negative:
        return axes

    def maybe_negative(chosen: tuple[int, ...]) -> SearchStrategy[tuple[int, ...]]:
        flips = st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen))
        return flips.map(
            lambda signs: tuple(a - rank if flip else a for a, flip in zip(chosen, signs))
        )

    return axes.flatmap(maybe_negative)


# -- attributes -----------------------------------------------------------------------------------

_LIST_KINDS = {"INTS": "INT", "FLOATS": "FLOAT", "STRINGS": "STRING", "TENSORS": "TENSOR"}


def attribute_values(
    attr: AttributeSpec,
    *,
    min_value: float | None = None,
    max_value: float | None = None,
    min_size: int = 0,
    max_size: int = 4,
    tensor_types: Iterable[Any] = (ElementType.FLOAT, ElementType.INT64),
) -> SearchStrategy[Any]:
    """Values of an attribute's type, as the kernels receive them.

    INT/FLOAT lie in ``[min_value, max_value]``; lists have ``min_size..max_size`` items;
    TENSOR values are small arrays of ``tensor_types``; TYPE_PROTO values are tensor types.
    GRAPH attributes have no generic value: build the body yourself.
    """
    if not isinstance(attr, AttributeSpec):
        raise InvalidArgument(f"attr: expected an AttributeSpec, got {type(attr).__name__}")
    _check_range("min_value", min_value, "max_value", max_value)
    _check_range("min_size", min_size, "max_size", max_size)
    kind = attr.type
    if kind in _LIST_KINDS:
        one = _single_attribute(_LIST_KINDS[kind], attr, min_value, max_value, tensor_types)
        return st.lists(one, min_size=min_size, max_size=max_size)
    return _single_attribute(kind, attr, min_value, max_value, tensor_types)


def _single_attribute(
    kind: str,
    attr: AttributeSpec,
    min_value: float | None,
    max_value: float | None,
    tensor_types: Iterable[Any],
) -> SearchStrategy[Any]:
    if kind == "INT":
        low = -(2**31) if min_value is None else math.ceil(min_value)
        high = 2**31 - 1 if max_value is None else math.floor(max_value)
        return st.integers(low, high)
    if kind == "FLOAT":
        return elements(ElementType.FLOAT, min_value=min_value, max_value=max_value)
    if kind == "STRING":
        return st.text(_DEFAULT_ALPHABET, max_size=8)
    if kind == "TENSOR":
        types = [_as_element_type(t, "tensor_types") for t in tensor_types]
        if not types:
            raise InvalidArgument("tensor_types: give at least one element type")
        return arrays(
            st.sampled_from(types),
            array_shapes(max_dims=2, max_side=3),
            min_value=min_value,
            max_value=max_value,
        )
    if kind == "TYPE_PROTO":
        return element_types(tensor_types).map(lambda elem: Tensor(elem, None))
    raise InvalidArgument(
        f"attribute {attr.name!r}: no generic values for {kind} attributes; "
        f"build them explicitly (a GRAPH needs a body)"
    )


# -- values of any value type ---------------------------------------------------------------------


def values(
    value_type: ValueType | SearchStrategy[ValueType],
    *,
    min_value: float | None = -4,
    max_value: float | None = 4,
    max_dims: int = 3,
    max_side: int = 3,
    max_length: int = 3,
) -> SearchStrategy[Any]:
    """Values of a value type: arrays for tensors, lists for sequences, dicts for maps,
    ``None`` or a value for optionals.

    Unknown parts of the type are drawn: an unknown element type from every type, an unknown
    rank or a symbolic/unknown dim from the size limits. Elements of one sequence share their
    element type (ONNX sequences are homogeneous) but not their shape unless it is static.
    """
    _check_int("max_dims", max_dims)
    _check_int("max_side", max_side)
    _check_int("max_length", max_length)
    _check_range("min_value", min_value, "max_value", max_value)
    options = {
        "min_value": min_value,
        "max_value": max_value,
        "max_dims": max_dims,
        "max_side": max_side,
        "max_length": max_length,
    }
    return _strategy(value_type).flatmap(lambda t: _values_of(t, options))


def _values_of(value_type: Any, options: dict[str, Any]) -> SearchStrategy[Any]:
    if isinstance(value_type, Tensor):
        elem: SearchStrategy[Any] = (
            st.sampled_from(ALL_ELEMENT_TYPES)
            if value_type.elem_type is None
            else st.just(value_type.elem_type)
        )
        return st.tuples(elem, _concrete_shape(value_type.shape, options)).flatmap(
            lambda pair: arrays(
                pair[0],
                pair[1],
                min_value=options["min_value"],
                max_value=options["max_value"],
            )
        )
    if isinstance(value_type, Sequence):
        inner = value_type.elem if value_type.elem is not None else Tensor(ElementType.FLOAT)
        if isinstance(inner, Tensor) and inner.elem_type is None:
            shape = inner.shape
            return st.sampled_from(ALL_ELEMENT_TYPES).flatmap(
                lambda e: _values_of(Sequence(Tensor(e, shape)), options)
            )
        return st.lists(_values_of(inner, options), max_size=options["max_length"])
    if isinstance(value_type, Optional):
        inner = value_type.elem if value_type.elem is not None else Tensor(ElementType.FLOAT)
        return st.none() | _values_of(inner, options)
    if isinstance(value_type, Map):
        return _map_values(value_type, options)
    raise InvalidArgument(
        f"values: expected a Tensor, Sequence, Optional or Map type, got {value_type!r}"
    )


def _concrete_shape(shape: Any, options: dict[str, Any]) -> SearchStrategy[tuple[int, ...]]:
    if shape is None:
        return array_shapes(max_dims=options["max_dims"], max_side=options["max_side"])
    sides = [
        st.just(d) if isinstance(d, int) else st.integers(0, options["max_side"]) for d in shape
    ]
    return st.tuples(*sides)


def _map_values(value_type: Map, options: dict[str, Any]) -> SearchStrategy[dict[Any, Any]]:
    if value_type.key == ElementType.STRING:
        keys: SearchStrategy[Any] = st.text(_DEFAULT_ALPHABET, min_size=1, max_size=4)
    elif value_type.key in (ElementType.INT64, ElementType.INT32):
        keys = st.integers(-10, 10)
    else:
        raise InvalidArgument(
            f"values: map keys of {type_string(value_type.key)} are not supported; "
            f"use string or int64 keys"
        )
    inner = value_type.value if value_type.value is not None else Tensor(ElementType.FLOAT, ())
    return st.dictionaries(keys, _values_of(inner, options), max_size=options["max_length"])
