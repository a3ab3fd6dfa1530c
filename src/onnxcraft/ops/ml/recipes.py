"""Recipes of the ml family: strategies drawing valid nodes of ArrayFeatureExtractor, Binarizer,
CastMap, CategoryMapper, DictVectorizer, FeatureVectorizer, Imputer, LabelEncoder, Normalizer,
OneHotEncoder, Scaler, ZipMap, every version."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import feature_rows, float_values, unary
from onnxcraft.types import Map, Tensor

__all__ = ["register"]

_DOMAIN = "ai.onnx.ml"

_WORDS = ["a", "b", "c", "d"]


def _strings(values: list[str], shape: tuple[int, ...]) -> np.ndarray:
    array = np.empty(shape, dtype=object)
    array.reshape(-1)[:] = values
    return array


def _words(n: NodeDraw, shape: tuple[int, ...]) -> np.ndarray:
    size = int(np.prod(shape))
    return _strings(n.draw(st.lists(st.sampled_from(_WORDS), min_size=size, max_size=size)), shape)


@recipe
def array_feature_extractor(n: NodeDraw) -> NodeCase:
    shape = (*n.shape(min_dims=1, max_dims=2, max_side=3), n.integer(1, 3))
    x = n.given(_words(n, shape)) if n.elem("T") == ElementType.STRING else n.tensor(0, shape)
    picks = [n.integer(0, shape[-1] - 1) for _ in range(n.integer(1, 3))]
    return n.case([x, n.ints(picks)])


@recipe
def cast_map(n: NodeDraw) -> NodeCase:
    form = n.choice(["DENSE", "SPARSE"])
    limit = n.integer(1, 4)
    keys = sorted(n.draw(st.sets(st.integers(0, limit - 1), max_size=limit)))
    source = n.choice(["string", "float"])
    if source == "string":
        values: dict[int, Any] = {k: np.asarray(str(float(k) / 2), dtype=object) for k in keys}
        value_type = Map(ElementType.INT64, Tensor(ElementType.STRING, ()))
    else:
        values = {k: np.float32(k / 2) for k in keys}
        value_type = Map(ElementType.INT64, Tensor(ElementType.FLOAT, ()))
    attrs = {"map_form": form, "cast_to": n.choice(["TO_FLOAT", "TO_STRING", "TO_INT64"])}
    if form == "SPARSE":
        attrs["max_map"] = limit
    return n.case([n.value(values, value_type)], attrs)


@recipe
def category_mapper(n: NodeDraw) -> NodeCase:
    shape = n.shape(max_dims=2, max_side=3)
    attrs = {"cats_strings": _WORDS[:3], "cats_int64s": [5, 6, 7]}
    if n.elem("T1") == ElementType.STRING:
        n.bind("T2", ElementType.INT64)
        x = n.given(_words(n, shape))
    else:
        n.bind("T2", ElementType.STRING)
        x = n.tensor(0, shape, low=4, high=8)
    return n.case([x], attrs)


@recipe
def dict_vectorizer(n: NodeDraw) -> NodeCase:
    by_string = n.flag()
    vocabulary = [0, 1, 2] if not by_string else _WORDS[:3]
    kind = n.choice(["int64", "float", "double"] if by_string else ["string", "float", "double"])
    elem = {
        "int64": ElementType.INT64,
        "float": ElementType.FLOAT,
        "double": ElementType.DOUBLE,
        "string": ElementType.STRING,
    }[kind]
    keys = n.draw(
        st.sets(st.sampled_from(list(vocabulary) + (["z"] if by_string else [9])), max_size=3)
    )
    values = {
        k: np.asarray(str(i), dtype=object)
        if elem == ElementType.STRING
        else numpy_dtype(elem).type(i)
        for i, k in enumerate(sorted(keys, key=str))
    }
    key_elem = ElementType.STRING if by_string else ElementType.INT64
    n.bind("T2", elem)
    attrs = {"string_vocabulary" if by_string else "int64_vocabulary": list(vocabulary)}
    return n.case([n.value(values, Map(key_elem, Tensor(elem, ())))], attrs)


@recipe
def feature_vectorizer(n: NodeDraw) -> NodeCase:
    rows = n.integer(1, 3)
    widths = [n.integer(1, 3) for _ in range(n.integer(1, 3))]
    inputs = [n.tensor(i, (rows, w)) for i, w in enumerate(widths)]
    return n.case(inputs, {"inputdimensions": widths})


@recipe
def imputer(n: NodeDraw) -> NodeCase:
    x, features = feature_rows(n)
    count = n.choice([1, features])
    if n.elem("T") in (ElementType.FLOAT, ElementType.DOUBLE):
        attrs: dict[str, Any] = {
            "imputed_value_floats": float_values(n, count),
            "replaced_value_float": n.choice([0.0, float("nan")]),
        }
    else:
        attrs = {
            "imputed_value_int64s": [n.integer(-3, 3) for _ in range(count)],
            "replaced_value_int64": 0,
        }
    return n.case([x], attrs)


_KEYS = {
    ElementType.STRING: ("keys_strings", ["a", "b", "c"]),
    ElementType.INT64: ("keys_int64s", [1, 2, 3]),
    ElementType.FLOAT: ("keys_floats", [1.0, 2.0, 3.0]),
}


_VALUES = {
    ElementType.STRING: ("values_strings", ["x", "y", "z"]),
    ElementType.INT64: ("values_int64s", [7, 8, 9]),
    ElementType.FLOAT: ("values_floats", [0.5, 1.5, 2.5]),
}


@recipe
def label_encoder(n: NodeDraw) -> NodeCase:
    source, target = n.elem("T1"), n.elem("T2")
    shape = n.shape(max_dims=2, max_side=3)
    if n.version == 1:
        if source == target:
            target = n.bind(
                "T2", ElementType.INT64 if source == ElementType.STRING else ElementType.STRING
            )
        attrs: dict[str, Any] = {"classes_strings": ["a", "b", "c"]}
    else:
        attrs = dict([_key_attribute(n, source), _value_attribute(n, target)])
    if source == ElementType.STRING:
        x = n.given(_words(n, shape))
    else:
        x = n.tensor(0, shape, low=0, high=4)
    return n.case([x], attrs)


def _key_attribute(n: NodeDraw, elem: ElementType) -> tuple[str, Any]:
    if elem in _KEYS:
        return _KEYS[elem]
    return "keys_tensor", np.asarray([1, 2, 3], dtype=numpy_dtype(elem))


def _value_attribute(n: NodeDraw, elem: ElementType) -> tuple[str, Any]:
    if elem in _VALUES:
        return _VALUES[elem]
    return "values_tensor", np.asarray([7, 8, 9], dtype=numpy_dtype(elem))


@recipe
def normalizer(n: NodeDraw) -> NodeCase:
    x, _ = feature_rows(n)
    return n.case([x], {"norm": n.choice(["MAX", "L1", "L2"])})


@recipe
def one_hot_encoder(n: NodeDraw) -> NodeCase:
    shape = n.shape(max_dims=2, max_side=3)
    if n.elem("T") == ElementType.STRING:
        x = n.given(_words(n, shape))
        attrs: dict[str, Any] = {"cats_strings": _WORDS}
    else:
        x = n.tensor(0, shape, low=0, high=3)
        attrs = {"cats_int64s": [0, 1, 2, 3]}
    return n.case([x], {**attrs, **n.attrs(zeros=st.sampled_from([0, 1]))})


@recipe
def scaler(n: NodeDraw) -> NodeCase:
    x, features = feature_rows(n)
    count = n.choice([1, features])
    return n.case([x], {"offset": float_values(n, count), "scale": float_values(n, count)})


@recipe
def zip_map(n: NodeDraw) -> NodeCase:
    columns = n.integer(1, 3)
    shape = n.choice([(columns,), (n.integer(0, 3), columns)])
    x = n.tensor(0, shape, elem=ElementType.FLOAT)
    if n.flag():
        attrs: dict[str, Any] = {"classlabels_strings": _WORDS[:columns]}
    else:
        attrs = {"classlabels_int64s": list(range(columns))}
    return n.case([x], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("ArrayFeatureExtractor", array_feature_extractor, domain=_DOMAIN)
    recipes.add("Binarizer", unary(threshold=st.sampled_from([0.0, 1.0])), domain=_DOMAIN)
    recipes.add("CastMap", cast_map, domain=_DOMAIN)
    recipes.add("CategoryMapper", category_mapper, domain=_DOMAIN)
    recipes.add("DictVectorizer", dict_vectorizer, domain=_DOMAIN)
    recipes.add("FeatureVectorizer", feature_vectorizer, domain=_DOMAIN)
    recipes.add("Imputer", imputer, domain=_DOMAIN)
    recipes.add("LabelEncoder", label_encoder, domain=_DOMAIN)
    recipes.add("Normalizer", normalizer, domain=_DOMAIN)
    recipes.add("OneHotEncoder", one_hot_encoder, domain=_DOMAIN)
    recipes.add("Scaler", scaler, domain=_DOMAIN)
    recipes.add("ZipMap", zip_map, domain=_DOMAIN)
