"""Rules for the ai.onnx.ml transforms: encoders, scalers, imputers, map and feature plumbing.

Each rule gives exactly the type the kernel of :mod:`onnxcraft.ops.ml.kernels` produces, and
rejects at build time what the attributes alone show to be malformed (the kernel checks the
data). ZipMap gives a sequence of maps whose values are float scalars; DictVectorizer and
CastMap give ``[1, C]`` tensors.
"""

from __future__ import annotations

from collections.abc import Sequence as Seq
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of, type_string
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import dim_product, dim_sum
from onnxcraft.types import Dim, Map, Sequence, Shape, Tensor, ValueType

__all__ = ["register"]

_ML = "ai.onnx.ml"

_STRING, _INT64, _FLOAT = ElementType.STRING, ElementType.INT64, ElementType.FLOAT
_FLOATING = (ElementType.FLOAT, ElementType.DOUBLE)


# -- attributes -----------------------------------------------------------------------------------


def _exactly_one(ctx: InferenceContext, what: str, names: Seq[str]) -> str:
    """The name of the single attribute set among ``names``, or fail naming them all."""
    given = [name for name in names if ctx.attr(name) is not None]
    if len(given) != 1:
        found = ", ".join(given) or "none"
        raise ctx.fail(f"exactly one of {', '.join(names)} must be set for the {what}, got {found}")
    return given[0]


def _tensor_attr(ctx: InferenceContext, name: str) -> np.ndarray:
    return np.asarray(ctx.attr(name))


def _attr_elem(ctx: InferenceContext, name: str) -> ElementType:
    """The element type of a keys_*/values_*/cats_* attribute."""
    if name.endswith("_tensor"):
        dtype = _tensor_attr(ctx, name).dtype
        return _STRING if dtype.kind in "USO" else element_type_of(dtype)
    if name.endswith("strings"):
        return _STRING
    return _INT64 if name.endswith("int64s") else _FLOAT


def _attr_length(ctx: InferenceContext, name: str) -> int:
    if name.endswith("_tensor"):
        array = _tensor_attr(ctx, name)
        if array.ndim != 1:
            raise ctx.fail(f"attribute {name} must be a 1-D tensor, got shape {list(array.shape)}")
        return int(array.size)
    return len(ctx.attr(name))


def _tensor_name(elem: ElementType | None) -> str:
    return "tensor(?)" if elem is None else f"tensor({type_string(elem)})"


def _per_feature_length(ctx: InferenceContext, name: str, length: int) -> None:
    """A per-feature attribute holds 1 value or one per feature (the last axis of X)."""
    shape = ctx.shape(0)
    if length == 0:
        raise ctx.fail(f"{name} must not be empty")
    if length == 1 or shape is None:
        return
    features = shape[-1] if shape else None
    if not shape or (isinstance(features, int) and features != length):
        found = "a scalar" if not shape else f"{features} features"
        raise ctx.fail(
            f"{name} must hold 1 value or one per feature (the last axis of X), "
            f"got {length} values for an input with {found}"
        )


# -- tensor transforms ----------------------------------------------------------------------------


def _index_count(shape: Shape) -> Dim:
    """How many indices a Y of this shape holds: a product, or its one symbol beside 1s."""
    if shape is None:
        return None
    product = dim_product(shape)
    if product is not None:
        return product
    symbols = [d for d in shape if isinstance(d, str)]
    if len(symbols) == 1 and all(d == 1 or isinstance(d, str) for d in shape):
        return symbols[0]
    return None


def _array_feature_extractor(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    if shape is None:
        return [Tensor(elem, None)]
    if not shape:
        raise ctx.fail("input X must have rank >= 1, got a scalar")
    count = _index_count(ctx.shape(1))
    leading = (1,) if len(shape) == 1 else shape[:-1]
    return [Tensor(elem, (*leading, count))]


def _same_as_x(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ctx.elem(0), ctx.shape(0))]


def _imputer(ctx: InferenceContext) -> list[ValueType | None]:
    name = _exactly_one(ctx, "imputed values", ("imputed_value_floats", "imputed_value_int64s"))
    elem = ctx.elem(0)
    if elem is not None:
        wanted = "imputed_value_floats" if elem in _FLOATING else "imputed_value_int64s"
        if name != wanted:
            raise ctx.fail(f"a {_tensor_name(elem)} input needs {wanted}, but {name} is set")
    _per_feature_length(ctx, name, len(ctx.attr(name)))
    return _same_as_x(ctx)


def _scaler(ctx: InferenceContext) -> list[ValueType | None]:
    offset, scale = ctx.attr("offset"), ctx.attr("scale")
    if offset is not None and scale is not None and len(offset) != len(scale):
        raise ctx.fail(
            f"offset and scale must have the same length, got {len(offset)} and {len(scale)}"
        )
    for name, values in (("offset", offset), ("scale", scale)):
        if values is not None:
            _per_feature_length(ctx, name, len(values))
    return [Tensor(_FLOAT, ctx.shape(0))]


def _normalizer(ctx: InferenceContext) -> list[ValueType | None]:
    norm = ctx.attr("norm", "MAX")
    if norm not in ("MAX", "L1", "L2"):
        raise ctx.fail(f"norm must be 'MAX', 'L1' or 'L2', got {norm!r}")
    shape = ctx.shape(0)
    if shape is not None and len(shape) not in (1, 2):
        raise ctx.fail(f"input X must be [N, C] or [C], got rank {len(shape)}")
    return [Tensor(_FLOAT, shape)]


def _rows(ctx: InferenceContext, index: int) -> Dim:
    """The batch dim of input ``index`` as FeatureVectorizer reads it (1 for a 1-D input)."""
    shape = ctx.shape(index)
    if shape is None:
        return None
    if not shape:
        raise ctx.fail(f"input X[{index}] must have rank >= 1, got a scalar")
    return 1 if len(shape) == 1 else shape[0]


def _common_rows(ctx: InferenceContext, rows: list[Dim]) -> Dim:
    """The batch dim every input shares: a known number wins over symbols; conflicts fail."""
    numbers = {r for r in rows if isinstance(r, int)}
    if len(numbers) > 1:
        raise ctx.fail(f"every input must have the same number of rows, got {sorted(numbers)}")
    if numbers:
        return numbers.pop()
    symbols = {r for r in rows if isinstance(r, str)}
    return symbols.pop() if len(symbols) == 1 else None


def _feature_vectorizer(ctx: InferenceContext) -> list[ValueType | None]:
    sizes = ctx.attr("inputdimensions")
    if sizes is None:
        raise ctx.fail("attribute inputdimensions must be set (one size per input)")
    count = len(ctx.input_types)
    if len(sizes) != count:
        raise ctx.fail(f"inputdimensions has {len(sizes)} entries for {count} inputs")
    if any(int(s) < 0 for s in sizes):
        raise ctx.fail(f"inputdimensions must be >= 0, got {list(sizes)}")
    rows = _common_rows(ctx, [_rows(ctx, i) for i in range(count)])
    return [Tensor(_FLOAT, (rows, dim_sum([int(s) for s in sizes])))]


# -- encoders -------------------------------------------------------------------------------------


def _category_mapper(ctx: InferenceContext) -> list[ValueType | None]:
    ints, strings = ctx.attr("cats_int64s"), ctx.attr("cats_strings")
    if ints is None or strings is None:
        raise ctx.fail("both cats_int64s and cats_strings must be set")
    if len(ints) != len(strings):
        raise ctx.fail(
            f"cats_int64s and cats_strings must have the same length, "
            f"got {len(ints)} and {len(strings)}"
        )
    elem = ctx.elem(0)
    out = None if elem is None else (_INT64 if elem == _STRING else _STRING)
    return [Tensor(out, ctx.shape(0))]


def _one_hot_encoder(ctx: InferenceContext) -> list[ValueType | None]:
    name = _exactly_one(ctx, "categories", ("cats_int64s", "cats_strings"))
    elem = ctx.elem(0)
    if elem is not None:
        wanted = "cats_strings" if elem == _STRING else "cats_int64s"
        if name != wanted:
            raise ctx.fail(
                f"a {_tensor_name(elem)} input is looked up in {wanted}, but {name} is set"
            )
    shape = ctx.shape(0)
    count = len(ctx.attr(name))
    return [Tensor(_FLOAT, None if shape is None else (*shape, count))]


_KEYS = {
    2: ("keys_strings", "keys_int64s", "keys_floats"),
    4: ("keys_strings", "keys_int64s", "keys_floats", "keys_tensor"),
}
_VALUES = {
    2: ("values_strings", "values_int64s", "values_floats"),
    4: ("values_strings", "values_int64s", "values_floats", "values_tensor"),
}


def _check_default_tensor(ctx: InferenceContext, value_elem: ElementType) -> None:
    if ctx.attr("default_tensor") is None:
        return
    default = _tensor_attr(ctx, "default_tensor")
    if default.shape != (1,):
        raise ctx.fail(f"default_tensor must have shape [1], got {list(default.shape)}")
    elem = _attr_elem(ctx, "default_tensor")
    if elem != value_elem:
        raise ctx.fail(
            f"default_tensor is {_tensor_name(elem)} but the values are "
            f"{_tensor_name(value_elem)}: they must have the same element type"
        )


def _label_encoder(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    version = ctx.op.since_version
    if version < 2:
        out = None if elem is None else (_INT64 if elem == _STRING else _STRING)
        return [Tensor(out, shape)]
    family = 4 if version >= 4 else 2
    keys = _exactly_one(ctx, "keys", _KEYS[family])
    values = _exactly_one(ctx, "values", _VALUES[family])
    key_elem, value_elem = _attr_elem(ctx, keys), _attr_elem(ctx, values)
    if elem is not None and elem != key_elem:
        raise ctx.fail(
            f"input X is {_tensor_name(elem)} but the keys ({keys}) are "
            f"{_tensor_name(key_elem)}: the input must have the keys' element type"
        )
    key_count, value_count = _attr_length(ctx, keys), _attr_length(ctx, values)
    if key_count != value_count:
        raise ctx.fail(
            f"{keys} and {values} must have the same length, "
            f"got {key_count} keys and {value_count} values"
        )
    if family == 4:
        _check_default_tensor(ctx, value_elem)
    return [Tensor(value_elem, shape)]


# -- maps -----------------------------------------------------------------------------------------


def _map_input(ctx: InferenceContext) -> Map | None:
    t = ctx.input_types[0] if ctx.input_types else None
    if t is None or isinstance(t, Map):
        return t
    raise ctx.fail(f"input X must be a map, got {t}")


def _map_value_elem(mapping: Map | None) -> ElementType | None:
    if mapping is None or not isinstance(mapping.value, Tensor):
        return None
    return mapping.value.elem_type


def _dict_vectorizer(ctx: InferenceContext) -> list[ValueType | None]:
    name = _exactly_one(ctx, "vocabulary", ("int64_vocabulary", "string_vocabulary"))
    mapping = _map_input(ctx)
    if mapping is not None:
        wanted = "string_vocabulary" if mapping.key == _STRING else "int64_vocabulary"
        if name != wanted:
            raise ctx.fail(f"input X is {mapping}, whose keys need {wanted}, but {name} is set")
    vocabulary: Any = ctx.attr(name)
    return [Tensor(_map_value_elem(mapping), (1, len(vocabulary)))]


_CAST_TO = {"TO_FLOAT": _FLOAT, "TO_STRING": _STRING, "TO_INT64": _INT64}


def _cast_map(ctx: InferenceContext) -> list[ValueType | None]:
    cast_to, form = ctx.attr("cast_to", "TO_FLOAT"), ctx.attr("map_form", "DENSE")
    if cast_to not in _CAST_TO:
        raise ctx.fail(f"cast_to must be one of {', '.join(_CAST_TO)}, got {cast_to!r}")
    if form not in ("DENSE", "SPARSE"):
        raise ctx.fail(f"map_form must be 'DENSE' or 'SPARSE', got {form!r}")
    mapping = _map_input(ctx)
    if mapping is not None and mapping.key != _INT64:
        raise ctx.fail(f"input X must be a map with int64 keys, got {mapping}")
    width: Dim = None
    if form == "SPARSE":
        width = int(ctx.attr("max_map", 1))
        if width <= 0:
            raise ctx.fail(f"max_map must be > 0 when map_form is 'SPARSE', got {width}")
    return [Tensor(_CAST_TO[cast_to], (1, width))]


def _zipmap(ctx: InferenceContext) -> list[ValueType | None]:
    name = _exactly_one(ctx, "labels", ("classlabels_int64s", "classlabels_strings"))
    shape = ctx.shape(0)
    if shape is not None:
        if len(shape) not in (1, 2):
            raise ctx.fail(f"input X must be [N, C] or [C], got rank {len(shape)}")
        columns, labels = shape[-1], len(ctx.attr(name))
        if isinstance(columns, int) and columns != labels:
            raise ctx.fail(f"X has {columns} columns but {name} has {labels} labels")
    key = _STRING if name == "classlabels_strings" else _INT64
    return [Sequence(Map(key, Tensor(_FLOAT, ())))]


def register(rules: RuleRegistry) -> None:
    def add(op_type: str, rule: Any) -> None:
        rules.add(op_type, rule, since=ALL_VERSIONS, domain=_ML)

    add("ArrayFeatureExtractor", _array_feature_extractor)
    add("Binarizer", _same_as_x)
    add("CastMap", _cast_map)
    add("CategoryMapper", _category_mapper)
    add("DictVectorizer", _dict_vectorizer)
    add("FeatureVectorizer", _feature_vectorizer)
    add("Imputer", _imputer)
    add("LabelEncoder", _label_encoder)
    add("Normalizer", _normalizer)
    add("OneHotEncoder", _one_hot_encoder)
    add("Scaler", _scaler)
    add("ZipMap", _zipmap)
