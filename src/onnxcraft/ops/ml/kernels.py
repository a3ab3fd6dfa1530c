"""Kernels of the ai.onnx.ml transforms: encoders, scalers, imputers, map and feature plumbing.

Values: string tensors are object arrays of ``str``; a map is a ``dict`` whose values are numpy
scalars (or 0-d arrays) carrying their element type. Python scalars in a map carry no width
and take the customary one, as literals do: ``float`` is float32, ``int`` is int64. ZipMap
returns a ``list`` of such dicts with float32 values.

Where the standard is silent or loose, the kernels decide as follows:

- a key, category or label given twice: the last occurrence wins (LabelEncoder-4 says so;
  the same rule serves every operator here);
- float keys of LabelEncoder 2 and 4: a NaN key matches any NaN input and 0.0 matches -0.0;
- the feature axis of Imputer and Scaler is the last axis (the standard's ``[*, F]``);
- Normalizer: MAX divides by the row's largest value, L1 by the sum of absolute values, L2
  by the Euclidean norm (signs kept); a zero divisor leaves the row unchanged;
- Binarizer maps NaN to 0 (NaN is not greater than the threshold);
- OneHotEncoder truncates float inputs toward zero; NaN and infinities match no category;
- DictVectorizer ignores keys that are not in the vocabulary, and its output is ``[1, C]``;
  an empty map gives the value type the graph declares for the map (float if undeclared);
- CastMap writes floats as text with six decimals (``"%f"``); a SPARSE output holds zero
  where the map has no key (``"0.000000"`` for float maps cast to strings, ``""`` for string
  maps), and a key outside ``[0, max_map)`` is an error.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.ops.kernel_api import KernelContext, KernelRegistry
from onnxcraft.ops.kernel_common import fail
from onnxcraft.ops.versions import versions

__all__ = [
    "array_feature_extractor",
    "binarizer",
    "cast_map",
    "category_mapper",
    "dict_vectorizer",
    "feature_vectorizer",
    "imputer",
    "label_encoder_1",
    "label_encoder_2",
    "label_encoder_4",
    "normalizer",
    "one_hot_encoder",
    "register",
    "scaler",
    "zip_map",
]

_ML = "ai.onnx.ml"

_STRING = np.dtype(object)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_I16, _I32, _I64 = np.dtype(np.int16), np.dtype(np.int32), np.dtype(np.int64)
_NUMERIC = (_F32, _F64, _I64, _I32)
_TYPE_NAMES = {
    _STRING: "string",
    _F32: "float",
    _F64: "double",
    _I16: "int16",
    _I32: "int32",
    _I64: "int64",
}
_INT64_LIMIT = 2.0**63  # the first float beyond int64


# -- inputs and attributes ------------------------------------------------------------------------


def _type_name(dtype: np.dtype[Any]) -> str:
    name = _TYPE_NAMES.get(dtype, str(dtype))
    return f"tensor({name})"


def _tensor(op: str, arg: str, value: Any, allowed: Sequence[np.dtype[Any]]) -> np.ndarray:
    """``value`` as an array of one of the ``allowed`` dtypes (str arrays become object)."""
    if not isinstance(value, (np.ndarray, np.generic)):
        fail(op, f"input {arg} must be a tensor (numpy array), got {type(value).__name__}")
    array: np.ndarray = np.asarray(value)
    if array.dtype.kind in "US" and _STRING in allowed:
        array = array.astype(object)
    if array.dtype not in allowed:
        names = ", ".join(_type_name(d) for d in allowed)
        fail(op, f"input {arg} must be one of {names}, got {_type_name(array.dtype)}")
    return array


def _given(**attributes: Any) -> dict[str, Any]:
    """The attributes that are set (not None)."""
    return {name: value for name, value in attributes.items() if value is not None}


def _exactly_one(op: str, what: str, **attributes: Any) -> tuple[str, Any]:
    """The single attribute set among ``attributes``, or fail naming them all."""
    given = _given(**attributes)
    if len(given) != 1:
        names = ", ".join(attributes)
        found = ", ".join(given) or "none"
        fail(op, f"exactly one of {names} must be set for the {what}, got {found}")
    return next(iter(given.items()))


def _strings(items: Sequence[str]) -> np.ndarray:
    array = np.empty(len(items), dtype=object)
    array[:] = list(items)
    return array


def _attribute_array(op: str, name: str, value: Any) -> np.ndarray:
    """A keys/values/categories attribute as a 1-D array of its ONNX element type."""
    if name.endswith("_tensor"):
        array = np.asarray(value)
        if array.dtype.kind in "US":
            array = array.astype(object)
        if array.ndim != 1:
            fail(op, f"attribute {name} must be a 1-D tensor, got shape {list(array.shape)}")
        return array
    if name.endswith("strings"):
        return _strings(value)
    if name.endswith("int64s"):
        return np.asarray(value, dtype=np.int64).reshape(-1)
    return np.asarray(value, dtype=np.float32).reshape(-1)


# -- lookup tables --------------------------------------------------------------------------------


def _table(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct keys and their values; of repeated keys the last one wins."""
    reversed_keys = keys[::-1]
    if keys.dtype.kind == "f":
        # All NaNs form one key (NaN matches NaN), and 0.0 and -0.0 are one key.
        unique, first = np.unique(reversed_keys, return_index=True, equal_nan=True)
    else:
        unique, first = np.unique(reversed_keys, return_index=True)
    return unique, values[::-1][first]


def _lookup(
    x: np.ndarray, keys: np.ndarray, values: np.ndarray, default: Any
) -> tuple[np.ndarray, np.ndarray]:
    """``values`` at the position of each element of ``x`` in ``keys``, else ``default``.

    Returns the mapped array (the dtype of ``values``) and the mask of elements found.
    """
    out = np.full(x.shape, default, dtype=values.dtype)
    if keys.size == 0 or x.size == 0:
        return out, np.zeros(x.shape, dtype=bool)
    unique, mapped = _table(keys, values)
    position = np.minimum(np.searchsorted(unique, x), unique.size - 1)
    candidate = unique[position]
    found = np.asarray(candidate == x, dtype=bool)
    if unique.dtype.kind == "f":
        found |= np.isnan(candidate) & np.isnan(x)
    out[found] = mapped[position[found]]
    return out, found


# -- LabelEncoder ---------------------------------------------------------------------------------


def label_encoder_1(
    x: Any,
    *,
    classes_strings: Sequence[str] | None = None,
    default_int64: int = -1,
    default_string: str = "_Unused",
) -> np.ndarray:
    """Strings to their index in ``classes_strings``, or indices to the string at them."""
    x = _tensor("LabelEncoder", "X", x, (_STRING, _I64))
    classes = _strings(classes_strings or ())
    if x.dtype == _STRING:
        indices = np.arange(classes.size, dtype=np.int64)
        return _lookup(x, classes, indices, default_int64)[0]
    out = np.full(x.shape, default_string, dtype=object)
    inside = (x >= 0) & (x < classes.size)
    out[inside] = classes[x[inside]]
    return out


def _check_key_type(op: str, x: np.ndarray, keys: np.ndarray, keys_name: str) -> None:
    if x.dtype != keys.dtype:
        fail(
            op,
            f"input X is {_type_name(x.dtype)} but the keys ({keys_name}) are "
            f"{_type_name(keys.dtype)}: the input must have the keys' element type",
        )


def _check_lengths(
    op: str, keys: np.ndarray, keys_name: str, values: np.ndarray, name: str
) -> None:
    if keys.size != values.size:
        fail(
            op,
            f"{keys_name} and {name} must have the same length, "
            f"got {keys.size} keys and {values.size} values",
        )


def label_encoder_2(
    x: Any,
    *,
    keys_strings: Sequence[str] | None = None,
    keys_int64s: Sequence[int] | None = None,
    keys_floats: Sequence[float] | None = None,
    values_strings: Sequence[str] | None = None,
    values_int64s: Sequence[int] | None = None,
    values_floats: Sequence[float] | None = None,
    default_string: str = "_Unused",
    default_int64: int = -1,
    default_float: float = -0.0,
) -> np.ndarray:
    """Each element mapped through the parallel keys_* and values_* lists."""
    op = "LabelEncoder"
    x = _tensor(op, "X", x, (_STRING, _I64, _F32))
    keys_name, keys_value = _exactly_one(
        op, "keys", keys_strings=keys_strings, keys_int64s=keys_int64s, keys_floats=keys_floats
    )
    values_name, values_value = _exactly_one(
        op,
        "values",
        values_strings=values_strings,
        values_int64s=values_int64s,
        values_floats=values_floats,
    )
    keys = _attribute_array(op, keys_name, keys_value)
    values = _attribute_array(op, values_name, values_value)
    _check_key_type(op, x, keys, keys_name)
    _check_lengths(op, keys, keys_name, values, values_name)
    default = {_STRING: default_string, _I64: default_int64, _F32: default_float}[values.dtype]
    return _lookup(x, keys, values, default)[0]


_ENCODER_4_TYPES = (_STRING, _I64, _F32, _I32, _I16, _F64)


def _encoder_4_default(
    op: str, values: np.ndarray, default_tensor: Any, scalar_defaults: dict[np.dtype[Any], Any]
) -> Any:
    """default_tensor when given, else the default_* of the values' type, else its zero-ish."""
    if default_tensor is not None:
        default = np.asarray(default_tensor)
        if default.dtype.kind in "US":
            default = default.astype(object)
        if default.shape != (1,):
            fail(op, f"default_tensor must have shape [1], got {list(default.shape)}")
        if default.dtype != values.dtype:
            fail(
                op,
                f"default_tensor is {_type_name(default.dtype)} but the values are "
                f"{_type_name(values.dtype)}: they must have the same element type",
            )
        return default[0]
    if values.dtype in scalar_defaults:
        return scalar_defaults[values.dtype]
    # The standard's default_tensor: -1 for integers, -0.0 for floats.
    return -1 if values.dtype.kind == "i" else -0.0


def label_encoder_4(
    x: Any,
    *,
    keys_strings: Sequence[str] | None = None,
    keys_int64s: Sequence[int] | None = None,
    keys_floats: Sequence[float] | None = None,
    keys_tensor: Any = None,
    values_strings: Sequence[str] | None = None,
    values_int64s: Sequence[int] | None = None,
    values_floats: Sequence[float] | None = None,
    values_tensor: Any = None,
    default_string: str = "_Unused",
    default_int64: int = -1,
    default_float: float = -0.0,
    default_tensor: Any = None,
) -> np.ndarray:
    """LabelEncoder-2 with keys, values and the default also given as typed tensors."""
    op = "LabelEncoder"
    x = _tensor(op, "X", x, _ENCODER_4_TYPES)
    keys_name, keys_value = _exactly_one(
        op,
        "keys",
        keys_strings=keys_strings,
        keys_int64s=keys_int64s,
        keys_floats=keys_floats,
        keys_tensor=keys_tensor,
    )
    values_name, values_value = _exactly_one(
        op,
        "values",
        values_strings=values_strings,
        values_int64s=values_int64s,
        values_floats=values_floats,
        values_tensor=values_tensor,
    )
    keys = _attribute_array(op, keys_name, keys_value)
    values = _attribute_array(op, values_name, values_value)
    for name, array in ((keys_name, keys), (values_name, values)):
        if array.dtype not in _ENCODER_4_TYPES:
            fail(op, f"attribute {name} has unsupported element type {array.dtype}")
    _check_key_type(op, x, keys, keys_name)
    _check_lengths(op, keys, keys_name, values, values_name)
    scalar_defaults = {_STRING: default_string, _I64: default_int64, _F32: default_float}
    default = _encoder_4_default(op, values, default_tensor, scalar_defaults)
    return _lookup(x, keys, values, default)[0]


# -- CategoryMapper, OneHotEncoder ----------------------------------------------------------------


def category_mapper(
    x: Any,
    *,
    cats_int64s: Sequence[int] | None = None,
    cats_strings: Sequence[str] | None = None,
    default_int64: int = -1,
    default_string: str = "_Unused",
) -> np.ndarray:
    """Strings to integers or integers to strings through the parallel cats_* lists."""
    op = "CategoryMapper"
    x = _tensor(op, "X", x, (_STRING, _I64))
    if cats_int64s is None or cats_strings is None:
        fail(op, "both cats_int64s and cats_strings must be set")
    ints = np.asarray(cats_int64s, dtype=np.int64).reshape(-1)
    strings = _strings(cats_strings)
    if ints.size != strings.size:
        fail(
            op,
            f"cats_int64s and cats_strings must have the same length, "
            f"got {ints.size} and {strings.size}",
        )
    if x.dtype == _STRING:
        return _lookup(x, strings, ints, default_int64)[0]
    return _lookup(x, ints, strings, default_string)[0]


def _truncate_to_int64(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Floats truncated toward zero as int64, and the mask of those that fit."""
    truncated = np.trunc(x.astype(np.float64))
    fits = np.isfinite(truncated) & (truncated >= -_INT64_LIMIT) & (truncated < _INT64_LIMIT)
    return np.where(fits, truncated, 0.0).astype(np.int64), fits


def one_hot_encoder(
    x: Any,
    *,
    cats_int64s: Sequence[int] | None = None,
    cats_strings: Sequence[str] | None = None,
    zeros: int = 1,
) -> np.ndarray:
    """A float32 one-hot vector per element over the categories, on a new last axis."""
    op = "OneHotEncoder"
    x = _tensor(op, "X", x, (_STRING, _I64, _I32, _F32, _F64))
    name, given = _exactly_one(op, "categories", cats_int64s=cats_int64s, cats_strings=cats_strings)
    wanted = "cats_strings" if x.dtype == _STRING else "cats_int64s"
    if name != wanted:
        fail(op, f"a {_type_name(x.dtype)} input is looked up in {wanted}, but {name} is set")
    categories = _attribute_array(op, name, given)
    codes, valid = x, np.ones(x.shape, dtype=bool)
    if x.dtype.kind == "f":
        codes, valid = _truncate_to_int64(x)
    elif x.dtype != _STRING:
        codes = x.astype(np.int64)
    positions = np.arange(categories.size, dtype=np.int64)
    index, found = _lookup(codes, categories, positions, -1)
    found &= valid
    if not zeros and not found.all():
        unknown = x[~found].reshape(-1)[0].item()
        fail(op, f"value {unknown!r} of X is not a category, and zeros=0 forbids unknown ones")
    out = np.zeros((*x.shape, categories.size), dtype=np.float32)
    flat = out.reshape(x.size, categories.size)
    rows = np.flatnonzero(found)
    flat[rows, index.reshape(-1)[rows]] = 1.0
    return out


# -- tensor transforms ----------------------------------------------------------------------------


def array_feature_extractor(x: Any, y: Any) -> np.ndarray:
    """The elements of X at the indices Y along the last axis (a 1-D X gives one row)."""
    op = "ArrayFeatureExtractor"
    x = _tensor(op, "X", x, (_F32, _F64, _I64, _I32, _STRING))
    y = _tensor(op, "Y", y, (_I64,))
    if x.ndim == 0:
        fail(op, "input X must have rank >= 1, got a scalar")
    indices = y.reshape(-1)
    size = x.shape[-1]
    outside = (indices < 0) | (indices >= size)
    if outside.any():
        bad = int(indices[outside][0])
        fail(
            op,
            f"index {bad} in Y is out of range for the last axis of X (expected 0 <= Y < {size})",
        )
    picked: np.ndarray = np.take(x, indices, axis=-1)
    return picked.reshape(1, -1) if x.ndim == 1 else picked


def _greater(x: np.ndarray, threshold: float) -> np.ndarray:
    """``x > threshold``, exact for integers of any size."""
    if x.dtype.kind == "f":
        return np.asarray(x > threshold)
    if math.isnan(threshold) or threshold >= _INT64_LIMIT:
        return np.zeros(x.shape, dtype=bool)
    if threshold < -_INT64_LIMIT:
        return np.ones(x.shape, dtype=bool)
    # For an integer n and a real t, n > t exactly when n > floor(t).
    return np.asarray(x > math.floor(threshold))


def binarizer(x: Any, *, threshold: float = 0.0) -> np.ndarray:
    """1 where X is greater than the threshold, else 0, in the type of X."""
    x = _tensor("Binarizer", "X", x, _NUMERIC)
    return _greater(x, threshold).astype(x.dtype)


def _per_feature(op: str, name: str, values: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``values`` ready to broadcast over X: one value for all, or one per last-axis feature."""
    if values.size == 1:
        return values.reshape(())
    if x.ndim == 0 or values.size != x.shape[-1]:
        features = "a scalar" if x.ndim == 0 else f"{x.shape[-1]} features"
        fail(
            op,
            f"{name} must hold 1 value or one per feature (the last axis of X), "
            f"got {values.size} values for an input with {features}",
        )
    return values


def _imputed_values(op: str, x: np.ndarray, floats: Any, ints: Any) -> tuple[str, np.ndarray]:
    wanted = "imputed_value_floats" if x.dtype.kind == "f" else "imputed_value_int64s"
    name, given = _exactly_one(
        op, "imputed values", imputed_value_floats=floats, imputed_value_int64s=ints
    )
    if name != wanted:
        fail(op, f"a {_type_name(x.dtype)} input needs {wanted}, but {name} is set")
    values = np.asarray(given, dtype=np.float64 if x.dtype.kind == "f" else np.int64).reshape(-1)
    if values.size == 0:
        fail(op, f"{name} is empty: it must hold 1 value or one per feature")
    if x.dtype.kind == "i":
        info = np.iinfo(x.dtype)
        if values.min() < info.min or values.max() > info.max:
            fail(op, f"{name} has values that do not fit in {_type_name(x.dtype)}")
    return name, values.astype(x.dtype)


def imputer(
    x: Any,
    *,
    imputed_value_floats: Sequence[float] | None = None,
    imputed_value_int64s: Sequence[int] | None = None,
    replaced_value_float: float = 0.0,
    replaced_value_int64: int = 0,
) -> np.ndarray:
    """X with every element equal to the replaced value (NaN included) set to the imputed one."""
    op = "Imputer"
    x = _tensor(op, "X", x, _NUMERIC)
    name, values = _imputed_values(op, x, imputed_value_floats, imputed_value_int64s)
    fill = _per_feature(op, name, values, x)
    if x.dtype.kind == "f":
        replaced = replaced_value_float
        mask = np.isnan(x) if math.isnan(replaced) else x == replaced
    else:
        mask = x == replaced_value_int64
    return np.where(mask, fill, x).astype(x.dtype)


def _float_work(x: np.ndarray) -> np.ndarray:
    """float32 stays; other inputs are computed in float64, then stored as float32."""
    return x if x.dtype == _F32 else x.astype(np.float64)


def scaler(
    x: Any, *, offset: Sequence[float] | None = None, scale: Sequence[float] | None = None
) -> np.ndarray:
    """(X - offset) * scale as float32; an absent offset is 0 and an absent scale is 1."""
    op = "Scaler"
    x = _tensor(op, "X", x, _NUMERIC)
    work = _float_work(x)
    shift = np.asarray([0.0] if offset is None else offset, dtype=work.dtype).reshape(-1)
    factor = np.asarray([1.0] if scale is None else scale, dtype=work.dtype).reshape(-1)
    if offset is not None and scale is not None and shift.size != factor.size:
        fail(
            op,
            f"offset and scale must have the same length, got {shift.size} and {factor.size}",
        )
    if shift.size == 0 or factor.size == 0:
        fail(op, "offset and scale must not be empty")
    shift = _per_feature(op, "offset", shift, x)
    factor = _per_feature(op, "scale", factor, x)
    scaled: np.ndarray = (work - shift) * factor
    return scaled.astype(np.float32)


def normalizer(x: Any, *, norm: str = "MAX") -> np.ndarray:
    """Each row of an [N, C] (or [C]) input divided by its MAX, L1 or L2 norm, as float32."""
    op = "Normalizer"
    x = _tensor(op, "X", x, _NUMERIC)
    if x.ndim not in (1, 2):
        fail(op, f"input X must be [N, C] or [C], got shape {list(x.shape)}")
    # In float64, rounded once to float32: the squares of an L2 norm neither underflow (a row
    # of subnormals) nor overflow (a row near float32's largest value).
    work: np.ndarray = np.asarray(x, dtype=np.float64)
    if work.shape[-1] == 0:
        return work.astype(np.float32)
    if norm == "MAX":
        divisor = work.max(axis=-1, keepdims=True)
    elif norm == "L1":
        divisor = np.abs(work).sum(axis=-1, keepdims=True)
    elif norm == "L2":
        divisor = np.sqrt(np.square(work).sum(axis=-1, keepdims=True))
    else:
        fail(op, f"norm must be 'MAX', 'L1' or 'L2', got {norm!r}")
    safe = np.where(divisor == 0, 1, divisor)
    return (work / safe).astype(np.float32)


def _rows_of(op: str, index: int, x: np.ndarray) -> np.ndarray:
    """Input ``index`` as a 2-D [N, C] array (1-D is one row; trailing axes are flattened)."""
    if x.ndim == 0:
        fail(op, f"input X[{index}] must have rank >= 1, got a scalar")
    if x.ndim == 1:
        return x.reshape(1, -1)
    return x.reshape(x.shape[0], math.prod(x.shape[1:]))


def feature_vectorizer(*inputs: Any, inputdimensions: Sequence[int] | None = None) -> np.ndarray:
    """The inputs side by side as float32 columns, each cut or zero-padded to its dimension."""
    op = "FeatureVectorizer"
    if inputdimensions is None:
        fail(op, "attribute inputdimensions must be set (one size per input)")
    sizes = [int(d) for d in inputdimensions]
    if len(sizes) != len(inputs):
        fail(op, f"inputdimensions has {len(sizes)} entries for {len(inputs)} inputs")
    if any(size < 0 for size in sizes):
        fail(op, f"inputdimensions must be >= 0, got {sizes}")
    arrays = [
        _rows_of(op, i, _tensor(op, f"X[{i}]", value, _NUMERIC)) for i, value in enumerate(inputs)
    ]
    rows = {a.shape[0] for a in arrays}
    if len(rows) > 1:
        counts = [a.shape[0] for a in arrays]
        fail(op, f"every input must have the same number of rows, got {counts}")
    count = arrays[0].shape[0] if arrays else 0
    out = np.zeros((count, sum(sizes)), dtype=np.float32)
    start = 0
    for array, size in zip(arrays, sizes):
        width = min(size, array.shape[1])
        out[:, start : start + width] = array[:, :width]
        start += size
    return out


# -- maps -----------------------------------------------------------------------------------------


def _map(op: str, x: Any) -> Mapping[Any, Any]:
    if not isinstance(x, Mapping):
        fail(op, f"input X must be a map (dict), got {type(x).__name__}")
    return x


def _key_kind(op: str, keys: Sequence[Any]) -> str:
    """'int64', 'string' or 'empty' for the keys of a map."""
    if not keys:
        return "empty"
    if all(isinstance(k, str) for k in keys):
        return "string"
    if all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in keys):
        return "int64"
    fail(op, "the keys of map X must be all int or all str")


def _value_dtype(
    op: str, values: Sequence[Any], python_int: np.dtype[Any] = _I64
) -> np.dtype[Any] | None:
    """The element type of a map's values (None for an empty map).

    Numpy values carry theirs; Python ``float`` counts as float32 and ``int`` as
    ``python_int`` (int64 unless the operator only takes float values).
    """
    typed = {np.asarray(v).dtype for v in values if isinstance(v, (np.ndarray, np.generic))}
    kinds = {type(v) for v in values if not isinstance(v, (np.ndarray, np.generic))}
    if any(np.asarray(v).size != 1 for v in values if isinstance(v, np.ndarray)):
        fail(op, "the values of map X must be scalars")
    if len(typed) > 1:
        names = sorted(str(d) for d in typed)
        fail(op, f"the values of map X have mixed element types {names}")
    if typed:
        dtype = typed.pop()
        return _STRING if dtype.kind in "USO" else dtype
    if not kinds:
        return None
    if kinds == {str}:
        return _STRING
    if kinds <= {int, float}:  # bool is a type of its own here, and not allowed
        return _F32 if float in kinds else python_int
    names = sorted(k.__name__ for k in kinds)
    fail(op, f"the values of map X must be all numbers or all strings, got {names}")


def _map_values(op: str, values: Sequence[Any], dtype: np.dtype[Any]) -> np.ndarray:
    """A map's values (already checked to share ``dtype``) as a 1-D array."""
    items = [v.item() if isinstance(v, (np.ndarray, np.generic)) else v for v in values]
    if dtype == _STRING:
        return _strings(items)
    return np.array(items, dtype=dtype)


def dict_vectorizer(
    x: Any,
    *,
    int64_vocabulary: Sequence[int] | None = None,
    string_vocabulary: Sequence[str] | None = None,
    declared_value_type: int | None = None,
) -> np.ndarray:
    """The map's values at the positions of their keys in the vocabulary, as a [1, C] tensor.

    ``declared_value_type`` is the element type the graph declares for the map's values: an
    empty map carries none of its own (without it, an empty map gives float).
    """
    op = "DictVectorizer"
    mapping = _map(op, x)
    name, vocabulary = _exactly_one(
        op,
        "vocabulary",
        int64_vocabulary=int64_vocabulary,
        string_vocabulary=string_vocabulary,
    )
    keys = list(mapping)
    kind = _key_kind(op, keys)
    wanted = "string_vocabulary" if kind == "string" else "int64_vocabulary"
    if kind != "empty" and name != wanted:
        fail(op, f"map X has {kind} keys, which need {wanted}, but {name} is set")
    values = list(mapping.values())
    dtype = _value_dtype(op, values) or _declared_dtype(declared_value_type)
    if dtype not in (_F32, _F64, _I64, _STRING):
        fail(op, f"the values of map X must be int64, float, double or string, got {dtype}")
    zero: Any = "" if dtype == _STRING else 0
    ordered = [mapping.get(k, zero) for k in vocabulary]
    return _map_values(op, ordered, dtype).reshape(1, -1)


def _declared_dtype(elem: int | None) -> np.dtype[Any]:
    """The dtype of an element type the graph declares; float when it declares none."""
    return _F32 if elem is None else numpy_dtype(ElementType(elem))


def _dict_vectorizer_node(ctx: KernelContext, x: Any, **attributes: Any) -> np.ndarray:
    """DictVectorizer as a node runs it: the map's declared value type comes from the graph."""
    declared = ctx.input_elem_types[0] if ctx.input_elem_types else None
    return dict_vectorizer(x, declared_value_type=declared, **attributes)


def _parse_floats(op: str, texts: Sequence[str]) -> np.ndarray:
    try:
        return np.array([float(t) for t in texts], dtype=np.float32)
    except ValueError as exc:
        fail(op, f"cannot cast a value of map X to float: {exc}")


def _parse_int64s(op: str, texts: Sequence[str]) -> np.ndarray:
    numbers: list[int] = []
    for text in texts:
        try:
            numbers.append(int(text))
        except ValueError:
            value = _parse_floats(op, [text])[0]
            if not math.isfinite(value):
                fail(op, f"cannot cast the value {text!r} of map X to int64")
            numbers.append(int(value))  # truncation toward zero, as for float maps
    return np.array(numbers, dtype=np.int64)


def _cast_map_values(op: str, values: np.ndarray, cast_to: str) -> np.ndarray:
    """The map's values (float32 or str) converted as cast_to says."""
    if cast_to == "TO_STRING":
        if values.dtype == _STRING:
            return values
        return np.char.mod("%f", values.astype(np.float64)).astype(object)
    if cast_to == "TO_FLOAT":
        return values if values.dtype == _F32 else _parse_floats(op, list(values))
    if values.dtype == _STRING:
        return _parse_int64s(op, list(values))
    integers, fits = _truncate_to_int64(values)
    if not fits.all():
        fail(op, f"cannot cast the value {values[~fits][0]} of map X to int64")
    return integers


_CAST_TO = ("TO_FLOAT", "TO_STRING", "TO_INT64")


def _sparse_filler(op: str, source: np.dtype[Any], cast_to: str) -> Any:
    """What a SPARSE output holds where the map has no key: zero in the output's type,
    written like the values when float values become strings."""
    if source == _STRING:
        return "" if cast_to == "TO_STRING" else 0
    return _cast_map_values(op, np.zeros(1, np.float32), cast_to)[0]


def cast_map(
    x: Any, *, cast_to: str = "TO_FLOAT", map_form: str = "DENSE", max_map: int = 1
) -> np.ndarray:
    """An int64-keyed map as a [1, N] tensor ordered by key (DENSE) or indexed by it (SPARSE)."""
    op = "CastMap"
    mapping = _map(op, x)
    if cast_to not in _CAST_TO:
        fail(op, f"cast_to must be one of {', '.join(_CAST_TO)}, got {cast_to!r}")
    if map_form not in ("DENSE", "SPARSE"):
        fail(op, f"map_form must be 'DENSE' or 'SPARSE', got {map_form!r}")
    if map_form == "SPARSE" and max_map <= 0:
        fail(op, f"max_map must be > 0 when map_form is 'SPARSE', got {max_map}")
    if _key_kind(op, list(mapping)) == "string":
        fail(op, "the keys of map X must be int64, got str")
    keys = sorted(mapping)
    source = _value_dtype(op, list(mapping.values()), python_int=_F32) or _F32
    if source not in (_F32, _STRING):
        fail(op, f"the values of map X must be float or string, got {source}")
    values = _cast_map_values(op, _map_values(op, [mapping[k] for k in keys], source), cast_to)
    if map_form == "DENSE":
        return values.reshape(1, -1)
    positions = np.asarray(keys, dtype=np.int64)
    outside = (positions < 0) | (positions >= max_map)
    if outside.any():
        fail(op, f"key {positions[outside][0]} of map X is outside [0, max_map={max_map})")
    out = np.full(max_map, _sparse_filler(op, source, cast_to), dtype=values.dtype)
    out[positions] = values
    return out.reshape(1, -1)


def zip_map(
    x: Any,
    *,
    classlabels_int64s: Sequence[int] | None = None,
    classlabels_strings: Sequence[str] | None = None,
) -> list[dict[Any, Any]]:
    """One map label -> score per row of X (a 1-D X is one row)."""
    op = "ZipMap"
    x = _tensor(op, "X", x, (_F32,))
    name, labels = _exactly_one(
        op,
        "labels",
        classlabels_int64s=classlabels_int64s,
        classlabels_strings=classlabels_strings,
    )
    if x.ndim not in (1, 2):
        fail(op, f"input X must be [N, C] or [C], got shape {list(x.shape)}")
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    keys = [str(k) for k in labels] if name == "classlabels_strings" else [int(k) for k in labels]
    if rows.shape[1] != len(keys):
        fail(op, f"X has {rows.shape[1]} columns but {name} has {len(keys)} labels")
    return [dict(zip(keys, row)) for row in rows]


def register(kernels: KernelRegistry) -> None:
    def add(op_type: str, fn: Any) -> None:
        kernels.add(op_type, fn, since=versions(op_type, _ML), domain=_ML)

    add("ArrayFeatureExtractor", array_feature_extractor)
    add("Binarizer", binarizer)
    add("CastMap", cast_map)
    add("CategoryMapper", category_mapper)
    kernels.add(
        "DictVectorizer",
        _dict_vectorizer_node,
        since=versions("DictVectorizer", _ML),
        domain=_ML,
        context=True,
    )
    add("FeatureVectorizer", feature_vectorizer)
    add("Imputer", imputer)
    add("Normalizer", normalizer)
    add("OneHotEncoder", one_hot_encoder)
    add("Scaler", scaler)
    add("ZipMap", zip_map)
    kernels.add("LabelEncoder", label_encoder_1, since=1, domain=_ML)
    kernels.add("LabelEncoder", label_encoder_2, since=2, domain=_ML)
    kernels.add("LabelEncoder", label_encoder_4, since=4, domain=_ML)
