"""Kernels of the ai.onnx.ml transforms against onnxruntime, or plain-Python re-derivations where
onnxruntime lacks the type or the version, or departs from the standard (each such case says
why)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

import onnxcraft as oc
from onnxcraft import specs
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import EvaluationError
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.infer.rules import default_rules
from onnxcraft.ops.ml import kernels
from onnxcraft.opset.ai.onnx.ml import v1 as ml1
from onnxcraft.opset.ai.onnx.ml import v2 as ml2
from onnxcraft.opset.ai.onnx.ml import v4 as ml4
from tests.evaluate._ml_transforms import (
    ML,
    assert_same_tensor,
    distinct,
    evaluate_both,
    finite_float,
    label,
    onnxruntime_run,
    small_int,
    strings_array,
)

OPERATORS = (
    "ArrayFeatureExtractor",
    "Binarizer",
    "CastMap",
    "CategoryMapper",
    "DictVectorizer",
    "FeatureVectorizer",
    "Imputer",
    "LabelEncoder",
    "Normalizer",
    "OneHotEncoder",
    "Scaler",
    "ZipMap",
)
NUMERIC = ("float32", "float64", "int64", "int32")
FAST = settings(max_examples=25, deadline=None)


def _arg(name: str, dtype: str, shape: Any) -> oc.Var:
    elem = ElementType.STRING if dtype == "string" else np.dtype(dtype)
    return oc.arg(name, elem, shape)


def _numbers(draw: st.DrawFn, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    size = math.prod(shape)
    if dtype.startswith("float"):
        values = draw(st.lists(finite_float, min_size=size, max_size=size))
    else:
        values = draw(st.lists(st.integers(-50, 50), min_size=size, max_size=size))
    return np.array(values, dtype=dtype).reshape(shape)


def _shape(draw: st.DrawFn, ranks: tuple[int, ...] = (1, 2, 3)) -> tuple[int, ...]:
    """Leading dims may be 0 (no rows); the last axis, which operators index, is not."""
    rank = draw(st.sampled_from(ranks))
    leading = draw(st.lists(st.integers(0, 3), min_size=rank - 1, max_size=rank - 1))
    return (*leading, draw(st.integers(1, 4)))


def _tensor(draw: st.DrawFn, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if dtype == "string":
        return strings_array([draw(label) for _ in range(math.prod(shape))], shape)
    return _numbers(draw, dtype, shape)


def test_every_spec_version_has_a_kernel_and_a_rule() -> None:
    kernel_table, rule_table = default_registry(), default_rules()
    for op_type in OPERATORS:
        for version in specs.versions(op_type, ML):
            assert kernel_table.lookup(ML, op_type, version) is not None, (op_type, version)
            assert rule_table.lookup(ML, op_type, version) is not None, (op_type, version)


# -- ArrayFeatureExtractor ------------------------------------------------------------------------


@st.composite
def feature_extraction(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    dtype = draw(st.sampled_from((*NUMERIC, "string")))
    shape = _shape(draw)
    index_shape = draw(st.sampled_from([(), (1,), (2,), (3,), (1, 2), (2, 2)]))
    count = math.prod(index_shape)
    picks = draw(st.lists(st.integers(0, shape[-1] - 1), min_size=count, max_size=count))
    return _tensor(draw, dtype, shape), np.array(picks, dtype=np.int64).reshape(index_shape)


@FAST
@given(feature_extraction())
def test_array_feature_extractor_matches_onnxruntime(case: tuple[np.ndarray, np.ndarray]) -> None:
    x, y = case
    dtype = "string" if x.dtype == object else str(x.dtype)
    X, Y = _arg("X", dtype, x.shape), oc.arg("Y", np.int64, y.shape)
    ours, theirs = evaluate_both([X, Y], {"Z": ml4.ArrayFeatureExtractor(X, Y)}, {"X": x, "Y": y})
    assert_same_tensor(ours["Z"], theirs["Z"])


def test_array_feature_extractor_rank_one_and_empty_indices() -> None:
    x = strings_array(["p", "q", "r"])
    got = kernels.array_feature_extractor(x, np.array([2, 0, 2], np.int64))
    assert got.shape == (1, 3) and got.tolist() == [["r", "p", "r"]]
    # No indices select nothing (onnxruntime refuses them; the standard does not).
    empty = kernels.array_feature_extractor(np.ones((2, 3), np.float32), np.zeros(0, np.int64))
    assert empty.shape == (2, 0) and empty.dtype == np.float32


@pytest.mark.parametrize("index", [-1, 3])
def test_array_feature_extractor_rejects_indices_out_of_range(index: int) -> None:
    with pytest.raises(EvaluationError, match=rf"ArrayFeatureExtractor: index {index} in Y"):
        kernels.array_feature_extractor(np.ones((2, 3)), np.array([0, index], np.int64))
    with pytest.raises(EvaluationError, match="ArrayFeatureExtractor: input X must have rank"):
        kernels.array_feature_extractor(np.float32(1), np.array([0], np.int64))
    with pytest.raises(EvaluationError, match=r"input Y must be one of tensor\(int64\)"):
        kernels.array_feature_extractor(np.ones((2, 3)), np.array([0.0]))


# -- Binarizer ------------------------------------------------------------------------------------


@FAST
@given(
    st.lists(st.floats(-5, 5, width=32), min_size=0, max_size=12),
    st.floats(-3, 3, width=32),
)
def test_binarizer_float_matches_onnxruntime(values: list[float], threshold: float) -> None:
    x = np.array(values, np.float32)
    X = oc.arg("X", np.float32, ("N",))
    ours, theirs = evaluate_both([X], {"Y": ml4.Binarizer(X, threshold=threshold)}, {"X": x})
    assert_same_tensor(ours["Y"], theirs["Y"])


@FAST
@given(
    st.sampled_from(NUMERIC),
    st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=8),
    st.floats(-(2.0**41), 2.0**41, width=32),
)
def test_binarizer_every_type_by_exact_comparison(
    dtype: str, values: list[int], threshold: float
) -> None:
    # onnxruntime has only a float kernel; Python compares int and float exactly.
    x = np.array(values, dtype=np.int64).astype(dtype)
    expected = [1 if v > threshold else 0 for v in x.tolist()]
    got = kernels.binarizer(x, threshold=threshold)
    assert got.dtype == x.dtype and got.tolist() == expected


def test_binarizer_edges() -> None:
    # NaN is not greater than the threshold: 0, as the standard's rule says.
    got = kernels.binarizer(np.array([np.nan, 0.5, -0.0], np.float32), threshold=0.0)
    assert got.tolist() == [0.0, 1.0, 0.0]
    big = np.array([2**53 + 1, 2**53], np.int64)  # not representable as float64 exactly
    assert kernels.binarizer(big, threshold=float(2**53)).tolist() == [1, 0]
    with pytest.raises(EvaluationError, match=r"Binarizer: input X must be one of"):
        kernels.binarizer(strings_array(["a"]))


# -- CastMap --------------------------------------------------------------------------------------


def _map_node_model(op_type: str, key: int, value: int, output: Any, **attrs: Any) -> Any:
    """A one-node onnx model taking a map(key, value) input named X."""
    map_type = helper.make_map_type_proto(key, helper.make_tensor_type_proto(value, None))
    node = helper.make_node(op_type, ["X"], ["Y"], domain=ML, **attrs)
    graph = helper.make_graph(
        [node], "g", [helper.make_value_info("X", map_type)], [helper.make_value_info("Y", output)]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(ML, 1)])
    model.ir_version = 8
    return model


def _tensor_type(elem: int) -> Any:
    return helper.make_tensor_type_proto(elem, None)


_CAST_ELEM = {
    "TO_FLOAT": TensorProto.FLOAT,
    "TO_STRING": TensorProto.STRING,
    "TO_INT64": TensorProto.INT64,
}

float_map = st.dictionaries(st.integers(0, 9), finite_float, min_size=1, max_size=6)


@FAST
@given(float_map, st.sampled_from(sorted(_CAST_ELEM)), st.sampled_from(["DENSE", "SPARSE"]))
def test_cast_map_of_floats_matches_onnxruntime(
    mapping: dict[int, float], cast_to: str, form: str
) -> None:
    model = _map_node_model(
        "CastMap",
        TensorProto.INT64,
        TensorProto.FLOAT,
        _tensor_type(_CAST_ELEM[cast_to]),
        cast_to=cast_to,
        map_form=form,
        max_map=10,
    )
    theirs = onnxruntime_run(model, {"X": mapping})["Y"]
    ours = kernels.cast_map(mapping, cast_to=cast_to, map_form=form, max_map=10)
    if form == "SPARSE" and cast_to == "TO_STRING":
        # onnxruntime fills missing keys with the text "0.f"; ours is zero written like the
        # values. Compare the keys present, and check the filler on its own.
        present = sorted(mapping)
        assert ours.shape == (1, 10)
        assert ours[0, present].tolist() == theirs[0, present].tolist()
        missing = [i for i in range(10) if i not in mapping]
        assert ours[0, missing].tolist() == ["0.000000"] * len(missing)
        return
    assert_same_tensor(ours, theirs)


def test_cast_map_model_matches_onnxruntime() -> None:
    M = oc.arg("M", oc.Map(np.int64, oc.Tensor(np.float32, ())))
    feeds = {"M": {4: 1.5, 1: -2.25, 0: 8.0}}
    outputs = {
        "dense": ml4.CastMap(M, cast_to="TO_INT64"),
        "sparse": ml4.CastMap(M, map_form="SPARSE", max_map=6),
    }
    ours, theirs = evaluate_both([M], outputs, feeds)
    for name in outputs:
        assert_same_tensor(ours[name], theirs[name])


def test_cast_map_of_strings_and_empty_maps() -> None:
    # onnxruntime's Python API cannot feed map(int64, string): derived by hand.
    texts = {2: "7", 0: "-1.5", 5: "x"}
    assert kernels.cast_map(texts, cast_to="TO_STRING").tolist() == [["-1.5", "7", "x"]]
    sparse = kernels.cast_map(texts, cast_to="TO_STRING", map_form="SPARSE", max_map=6)
    assert sparse.tolist() == [["-1.5", "", "7", "", "", "x"]]
    numbers = {2: "7", 0: "-1.5", 1: "1e3"}
    assert kernels.cast_map(numbers).tolist() == [[-1.5, 1000.0, 7.0]]
    assert kernels.cast_map(numbers).dtype == np.float32
    assert kernels.cast_map(numbers, cast_to="TO_INT64").tolist() == [[-1, 1000, 7]]
    spread = kernels.cast_map(numbers, map_form="SPARSE", max_map=4)
    assert spread.dtype == np.float32 and spread.tolist() == [[-1.5, 1000.0, 7.0, 0.0]]
    spread = kernels.cast_map({3: "12"}, cast_to="TO_INT64", map_form="SPARSE", max_map=4)
    assert spread.dtype == np.int64 and spread.tolist() == [[0, 0, 0, 12]]
    assert kernels.cast_map({}).shape == (1, 0)
    zeros = kernels.cast_map({}, map_form="SPARSE", max_map=3, cast_to="TO_INT64")
    assert zeros.tolist() == [[0, 0, 0]] and zeros.dtype == np.int64


@pytest.mark.parametrize(
    ("mapping", "attrs", "message"),
    [
        ({1: 1.0}, {"cast_to": "TO_DOUBLE"}, "cast_to must be one of"),
        ({1: 1.0}, {"map_form": "PACKED"}, "map_form must be 'DENSE' or 'SPARSE'"),
        ({1: 1.0}, {"map_form": "SPARSE", "max_map": 0}, "max_map must be > 0"),
        ({3: 1.0}, {"map_form": "SPARSE", "max_map": 3}, r"key 3 of map X is outside \[0, "),
        ({-1: 1.0}, {"map_form": "SPARSE", "max_map": 3}, "key -1 of map X is outside"),
        ({1: "x"}, {}, "cannot cast a value of map X to float"),
        ({1: float("nan")}, {"cast_to": "TO_INT64"}, "cannot cast the value nan"),
        ({"a": 1.0}, {}, "the keys of map X must be int64"),
        ({1: np.float64(1.0)}, {}, "the values of map X must be float or string, got float64"),
        ([1.0], {}, "input X must be a map"),
    ],
)
def test_cast_map_errors(mapping: Any, attrs: dict[str, Any], message: str) -> None:
    with pytest.raises(EvaluationError, match=f"CastMap: .*{message}"):
        kernels.cast_map(mapping, **attrs)


# -- CategoryMapper -------------------------------------------------------------------------------


@FAST
@given(
    st.lists(st.tuples(label, small_int), min_size=1, max_size=6),
    st.lists(label, min_size=0, max_size=8),
    st.lists(small_int, min_size=0, max_size=8),
)
def test_category_mapper_matches_onnxruntime(
    pairs: list[tuple[str, int]], texts: list[str], numbers: list[int]
) -> None:
    strings, ints = [p[0] for p in pairs], [p[1] for p in pairs]
    attrs = {"cats_strings": strings, "cats_int64s": ints}
    S, I = oc.arg("S", ElementType.STRING, ("N",)), oc.arg("I", np.int64, ("M",))
    outputs = {
        "to_int": ml4.CategoryMapper(S, default_int64=-9, **attrs),
        "to_str": ml4.CategoryMapper(I, default_string="none", **attrs),
    }
    feeds = {"S": strings_array(texts), "I": np.array(numbers, np.int64)}
    ours, theirs = evaluate_both([S, I], outputs, feeds)
    for name in outputs:
        assert_same_tensor(ours[name], theirs[name])


def test_category_mapper_errors() -> None:
    with pytest.raises(EvaluationError, match="CategoryMapper: both cats_int64s and cats_str"):
        kernels.category_mapper(np.array([1], np.int64), cats_int64s=[1])
    with pytest.raises(EvaluationError, match="must have the same length, got 2 and 1"):
        kernels.category_mapper(np.array([1], np.int64), cats_int64s=[1, 2], cats_strings=["a"])
    with pytest.raises(EvaluationError, match=r"CategoryMapper: input X must be one of"):
        kernels.category_mapper(np.array([1.0]), cats_int64s=[1], cats_strings=["a"])


# -- DictVectorizer -------------------------------------------------------------------------------


@FAST
@given(
    st.dictionaries(label, finite_float, max_size=5).filter(bool),
    distinct(label, max_size=6),
    st.dictionaries(small_int, finite_float, max_size=5).filter(bool),
    distinct(small_int, max_size=6),
)
def test_dict_vectorizer_matches_onnxruntime(
    by_text: dict[str, float],
    text_vocabulary: list[str],
    by_number: dict[int, float],
    number_vocabulary: list[int],
) -> None:
    # Keys missing from the vocabulary are dropped, as onnxruntime does.
    cases = [
        (TensorProto.STRING, by_text, {"string_vocabulary": text_vocabulary}),
        (TensorProto.INT64, by_number, {"int64_vocabulary": number_vocabulary}),
    ]
    for key, mapping, attrs in cases:
        model = _map_node_model(
            "DictVectorizer", key, TensorProto.FLOAT, _tensor_type(TensorProto.FLOAT), **attrs
        )
        theirs = onnxruntime_run(model, {"X": mapping})["Y"]
        assert_same_tensor(kernels.dict_vectorizer(mapping, **attrs), theirs)


def test_dict_vectorizer_model_matches_onnxruntime() -> None:
    D = oc.arg("D", oc.Map(np.str_, oc.Tensor(np.float32, ())))
    V = ml4.DictVectorizer(D, string_vocabulary=["b", "a", "z"])
    ours, theirs = evaluate_both([D], {"V": V}, {"D": {"a": 2.5, "b": -1.0, "q": 9.0}})
    assert_same_tensor(ours["V"], theirs["V"])


def test_dict_vectorizer_value_types() -> None:
    # onnxruntime's Python API feeds only float maps: the other value types by hand.
    doubles = {"a": np.float64(0.1), "c": np.float64(3.0)}
    got = kernels.dict_vectorizer(doubles, string_vocabulary=["c", "b", "a"])
    assert got.dtype == np.float64 and got.tolist() == [[3.0, 0.0, 0.1]]
    counts = kernels.dict_vectorizer({"x": 4, "y": 7}, string_vocabulary=["y", "x", "w"])
    assert counts.dtype == np.int64 and counts.tolist() == [[7, 4, 0]]
    texts = kernels.dict_vectorizer({5: "five", 1: "one"}, int64_vocabulary=[1, 2, 5])
    assert texts.dtype == object and texts.tolist() == [["one", "", "five"]]
    arrays = {np.int64(2): np.array(1.5, np.float32)}  # how a decoded MapProto looks
    got = kernels.dict_vectorizer(arrays, int64_vocabulary=[2, 3])
    assert got.dtype == np.float32 and got.tolist() == [[1.5, 0.0]]
    repeated = kernels.dict_vectorizer({"a": 1.0}, string_vocabulary=["a", "b", "a"])
    assert repeated.tolist() == [[1.0, 0.0, 1.0]]


@pytest.mark.parametrize(
    ("mapping", "attrs", "message"),
    [
        ({"a": 1.0}, {}, "exactly one of int64_vocabulary, string_vocabulary must be set"),
        ({"a": 1.0}, {"int64_vocabulary": [1], "string_vocabulary": ["a"]}, "exactly one of"),
        ({"a": 1.0}, {"int64_vocabulary": [1]}, "map X has string keys, which need string_voc"),
        ({1: 1.0}, {"string_vocabulary": ["a"]}, "map X has int64 keys, which need int64_voc"),
        ({"a": 1.0, "b": "x"}, {"string_vocabulary": ["a"]}, "must be all numbers or all str"),
        ({"a": np.float32(1), "b": np.float64(2)}, {"string_vocabulary": ["a"]}, "mixed element"),
        ({"a": np.ones(2)}, {"string_vocabulary": ["a"]}, "the values of map X must be scalars"),
        (np.ones(2), {"string_vocabulary": ["a"]}, "input X must be a map"),
    ],
)
def test_dict_vectorizer_errors(mapping: Any, attrs: dict[str, Any], message: str) -> None:
    with pytest.raises(EvaluationError, match=f"DictVectorizer: .*{message}"):
        kernels.dict_vectorizer(mapping, **attrs)


# -- FeatureVectorizer ----------------------------------------------------------------------------


@st.composite
def feature_blocks(draw: st.DrawFn) -> tuple[list[np.ndarray], list[int]]:
    dtype = draw(st.sampled_from(NUMERIC))
    rows = draw(st.integers(0, 3))
    count = draw(st.integers(1, 3))
    blocks = []
    for _ in range(count):
        # A 1-D input is one row, so it only fits a batch of one.
        rank = draw(st.integers(1 if rows == 1 else 2, 3))
        tail = tuple(draw(st.lists(st.integers(1, 3), min_size=rank - 1, max_size=rank - 1)))
        shape = (rows, *tail) if rank > 1 else (draw(st.integers(1, 4)),)
        blocks.append(_numbers(draw, dtype, shape))
    sizes = draw(st.lists(st.integers(1, 7), min_size=count, max_size=count))
    return blocks, sizes


def _vectorize_by_hand(blocks: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    rows = 1 if blocks[0].ndim == 1 else blocks[0].shape[0]
    table = []
    for r in range(rows):
        line: list[float] = []
        for block, size in zip(blocks, sizes):
            items = (block if block.ndim == 1 else block[r]).reshape(-1).tolist()[:size]
            line += items + [0] * (size - len(items))
        table.append(line)
    return np.array(table, np.float32).reshape(rows, sum(sizes))


@FAST
@given(feature_blocks())
def test_feature_vectorizer_matches_onnxruntime(case: tuple[list[np.ndarray], list[int]]) -> None:
    blocks, sizes = case
    args = [_arg(f"X{i}", str(b.dtype), b.shape) for i, b in enumerate(blocks)]
    feeds = {f"X{i}": b for i, b in enumerate(blocks)}
    model = oc.build(
        inputs=args, outputs={"Y": ml4.FeatureVectorizer(*args, inputdimensions=sizes)}
    )
    ours = oc.evaluate(model, feeds)["Y"]
    assert_same_tensor(ours, _vectorize_by_hand(blocks, sizes))
    if ours.shape[0] > 0:  # onnxruntime aborts the process on several inputs of no rows
        assert_same_tensor(ours, onnxruntime_run(model, feeds)["Y"])


def test_feature_vectorizer_zero_width_and_errors() -> None:
    a, b = np.ones((2, 2), np.float32), np.full((2, 1), 5.0, np.float32)
    assert kernels.feature_vectorizer(a, b, inputdimensions=[0, 2]).tolist() == [[5, 0], [5, 0]]
    with pytest.raises(EvaluationError, match="FeatureVectorizer: attribute inputdimensions"):
        kernels.feature_vectorizer(a)
    with pytest.raises(EvaluationError, match="inputdimensions has 1 entries for 2 inputs"):
        kernels.feature_vectorizer(a, b, inputdimensions=[2])
    with pytest.raises(EvaluationError, match=r"the same number of rows, got \[2, 3\]"):
        kernels.feature_vectorizer(a, np.ones((3, 1)), inputdimensions=[2, 1])
    with pytest.raises(EvaluationError, match=r"input X\[1\] must have rank >= 1"):
        kernels.feature_vectorizer(a, np.float32(1), inputdimensions=[2, 1])
    with pytest.raises(EvaluationError, match="inputdimensions must be >= 0"):
        kernels.feature_vectorizer(a, inputdimensions=[-1])


# -- Imputer --------------------------------------------------------------------------------------


@st.composite
def imputation(draw: st.DrawFn) -> tuple[np.ndarray, list[Any], Any]:
    dtype = draw(st.sampled_from(NUMERIC))
    shape = _shape(draw)
    x = _numbers(draw, dtype, shape)
    features = draw(st.sampled_from([1, shape[-1]]))
    first = x.reshape(-1)[0].item() if x.size else 0  # a value present, to replace
    if dtype.startswith("float"):
        replaced = draw(st.sampled_from([float("nan"), 0.0, float(first)]))
        if math.isnan(replaced):
            holes = draw(st.lists(st.booleans(), min_size=x.size, max_size=x.size))
            x.reshape(-1)[np.array(holes, bool)] = np.nan
        values: list[Any] = draw(st.lists(finite_float, min_size=features, max_size=features))
    else:
        replaced = draw(st.sampled_from([0, int(first)]))
        values = draw(st.lists(small_int, min_size=features, max_size=features))
    return x, values, replaced


def _impute_by_hand(x: np.ndarray, values: list[Any], replaced: Any) -> np.ndarray:
    out = x.copy()
    width = x.shape[-1]
    for position in np.ndindex(*x.shape):
        item = x[position]
        hit = math.isnan(item) and math.isnan(replaced) if x.dtype.kind == "f" else False
        if hit or item == replaced:
            out[position] = values[0] if len(values) == 1 else values[position[-1] % width]
    return out


def _imputer_attrs(x: np.ndarray, values: list[Any], replaced: Any) -> dict[str, Any]:
    if x.dtype.kind == "f":
        return {"imputed_value_floats": values, "replaced_value_float": replaced}
    return {"imputed_value_int64s": values, "replaced_value_int64": replaced}


@FAST
@given(imputation())
def test_imputer(case: tuple[np.ndarray, list[Any], Any]) -> None:
    x, values, replaced = case
    attrs = _imputer_attrs(x, values, replaced)
    expected = _impute_by_hand(x, values, replaced)
    assert_same_tensor(kernels.imputer(x, **attrs), expected)
    # onnxruntime covers float32 and int64 up to rank 2 (beyond, it takes dim 1 for the
    # features where the standard says the last axis).
    if x.dtype in (np.float32, np.int64) and x.ndim <= 2:
        X = _arg("X", str(x.dtype), x.shape)
        ours, theirs = evaluate_both([X], {"Y": ml4.Imputer(X, **attrs)}, {"X": x})
        assert_same_tensor(ours["Y"], theirs["Y"])


def test_imputer_errors() -> None:
    x = np.array([[1.0, 0.0, 3.0]], np.float32)
    with pytest.raises(EvaluationError, match="Imputer: exactly one of imputed_value_floats"):
        kernels.imputer(x)
    with pytest.raises(EvaluationError, match=r"a tensor\(float\) input needs imputed_value_f"):
        kernels.imputer(x, imputed_value_int64s=[1])
    with pytest.raises(EvaluationError, match=r"a tensor\(int32\) input needs imputed_value_i"):
        kernels.imputer(x.astype(np.int32), imputed_value_floats=[1.0])
    with pytest.raises(EvaluationError, match="got 2 values for an input with 3 features"):
        kernels.imputer(x, imputed_value_floats=[1.0, 2.0])
    with pytest.raises(EvaluationError, match="imputed_value_floats is empty"):
        kernels.imputer(x, imputed_value_floats=[])
    with pytest.raises(EvaluationError, match=r"do not fit in tensor\(int32\)"):
        kernels.imputer(x.astype(np.int32), imputed_value_int64s=[2**40])


# -- LabelEncoder ---------------------------------------------------------------------------------


def _encode_by_hand(
    inputs: list[Any], keys: list[Any], values: list[Any], default: Any
) -> list[Any]:
    """A dict from key to value, the last repeated key winning, NaN matching NaN."""

    def key_of(item: Any) -> Any:
        return "<nan>" if isinstance(item, float) and math.isnan(item) else item

    table = {key_of(k): v for k, v in zip(keys, values)}
    return [table.get(key_of(item), default) for item in inputs]


@FAST
@given(
    distinct(label, max_size=6),
    st.lists(label, max_size=8),
    st.lists(st.integers(-3, 8), max_size=8),
    st.integers(-5, 5),
    label,
)
def test_label_encoder_1_matches_onnxruntime(
    classes: list[str], texts: list[str], numbers: list[int], default_int: int, default_str: str
) -> None:
    attrs = {"classes_strings": classes, "default_int64": default_int}
    S, I = oc.arg("S", ElementType.STRING, ("N",)), oc.arg("I", np.int64, ("M",))
    outputs = {
        "to_int": ml1.LabelEncoder(S, **attrs),
        "to_str": ml1.LabelEncoder(I, default_string=default_str, **attrs),
    }
    feeds = {"S": strings_array(texts), "I": np.array(numbers, np.int64)}
    ours, theirs = evaluate_both([S, I], outputs, feeds)
    for name in outputs:
        assert_same_tensor(ours[name], theirs[name])


def test_label_encoder_1_repeated_class_takes_the_last_index() -> None:
    got = kernels.label_encoder_1(strings_array(["a", "b"]), classes_strings=["a", "b", "a"])
    assert got.tolist() == [2, 1]  # onnxruntime agrees


_KINDS = {
    "strings": (label, "string"),
    "int64s": (st.integers(-4, 4), "int64"),
    "floats": (st.sampled_from([0.5, -1.0, 2.25, 0.0, 7.0, 1e10]), "float32"),
}


@st.composite
def encoding(draw: st.DrawFn, key_kinds: tuple[str, ...] = tuple(_KINDS)) -> dict[str, Any]:
    key_kind = draw(st.sampled_from(key_kinds))
    value_kind = draw(st.sampled_from(tuple(_KINDS)))
    key_strategy, dtype = _KINDS[key_kind]
    keys = draw(distinct(key_strategy, max_size=5))
    values = draw(st.lists(_KINDS[value_kind][0], min_size=len(keys), max_size=len(keys)))
    inputs = draw(st.lists(st.one_of(st.sampled_from(keys), key_strategy), max_size=8))
    return {
        "key_kind": key_kind,
        "value_kind": value_kind,
        "keys": keys,
        "values": values,
        "x": strings_array(inputs) if dtype == "string" else np.array(inputs, dtype=dtype),
        "dtype": dtype,
    }


@FAST
@given(encoding())
def test_label_encoder_2_matches_onnxruntime(case: dict[str, Any]) -> None:
    attrs = {
        f"keys_{case['key_kind']}": case["keys"],
        f"values_{case['value_kind']}": case["values"],
    }
    X = _arg("X", case["dtype"], ("N",))
    ours, theirs = evaluate_both([X], {"Y": ml2.LabelEncoder(X, **attrs)}, {"X": case["x"]})
    assert_same_tensor(ours["Y"], theirs["Y"])


def _as_tensor_attr(kind: str, items: list[Any]) -> np.ndarray:
    if kind == "strings":
        return strings_array(items)
    return np.array(items, dtype=np.int64 if kind == "int64s" else np.float32)


@FAST
@given(encoding(), st.booleans(), st.booleans(), st.booleans())
def test_label_encoder_4_matches_onnxruntime(
    case: dict[str, Any], keys_as_tensor: bool, values_as_tensor: bool, with_default: bool
) -> None:
    key_kind, value_kind = case["key_kind"], case["value_kind"]
    attrs: dict[str, Any] = {}
    if keys_as_tensor:
        attrs["keys_tensor"] = _as_tensor_attr(key_kind, case["keys"])
    else:
        attrs[f"keys_{key_kind}"] = case["keys"]
    if values_as_tensor:
        attrs["values_tensor"] = _as_tensor_attr(value_kind, case["values"])
    else:
        attrs[f"values_{value_kind}"] = case["values"]
    if with_default:
        attrs["default_tensor"] = _as_tensor_attr(value_kind, case["values"][:1])
    X = _arg("X", case["dtype"], ("N",))
    ours, theirs = evaluate_both([X], {"Y": ml4.LabelEncoder(X, **attrs)}, {"X": case["x"]})
    assert_same_tensor(ours["Y"], theirs["Y"])


def test_label_encoder_nan_keys() -> None:
    nan_payload = np.frombuffer(np.uint32(0x7F800001).tobytes(), np.float32)[0]
    x = np.array([np.nan, -np.nan, nan_payload, 1.0, 0.0, -0.0, 3.0], np.float32)
    keys, values = [1.0, float("nan"), 0.0], [10, 20, 30]
    expected = _encode_by_hand(x.tolist(), keys, values, -1)
    assert expected == [20, 20, 20, 10, 30, 30, -1]
    # LabelEncoder-4: onnxruntime matches NaN keys as the standard says.
    X = oc.arg("X", np.float32, ("N",))
    Y = ml4.LabelEncoder(X, keys_floats=keys, values_int64s=values)
    ours, theirs = evaluate_both([X], {"Y": Y}, {"X": x})
    assert ours["Y"].tolist() == theirs["Y"].tolist() == expected
    # LabelEncoder-2 documents bit-wise key comparison "so even a float NaN can be mapped";
    # onnxruntime's version 2 never matches NaN, so this one is checked by hand.
    got = kernels.label_encoder_2(x, keys_floats=keys, values_int64s=values)
    assert got.tolist() == expected


_V4_TYPES = {
    "int16": np.int16,
    "int32": np.int32,
    "double": np.float64,
    "float": np.float32,
    "int64": np.int64,
}


@FAST
@given(
    st.sampled_from(sorted(_V4_TYPES)),
    st.sampled_from(sorted(_V4_TYPES)),
    st.lists(st.sampled_from([0, 1, 2, 3, -7]), min_size=1, max_size=6),
    st.lists(st.sampled_from([0, 1, 2, 3, 4, -7, 9]), max_size=8),
    st.booleans(),
)
def test_label_encoder_4_tensor_types_by_hand(
    key_type: str, value_type: str, keys: list[int], inputs: list[int], with_default: bool
) -> None:
    # onnxruntime lacks most int16, int32 and double pairs; repeated keys: the last one wins.
    key_dtype, value_dtype = _V4_TYPES[key_type], _V4_TYPES[value_type]
    values = np.arange(len(keys), dtype=value_dtype) * 3 + 1
    attrs: dict[str, Any] = {
        "keys_tensor": np.array(keys, key_dtype),
        "values_tensor": values,
    }
    default: Any = -1 if np.dtype(value_dtype).kind == "i" else -0.0
    if value_dtype == np.float32:
        attrs["default_float"], default = 4.5, 4.5  # the float default applies to float values
    if with_default:
        attrs["default_tensor"] = np.array([11], value_dtype)
        default = 11
    x = np.array(inputs, key_dtype)
    got = kernels.label_encoder_4(x, **attrs)
    assert got.dtype == value_dtype
    assert got.tolist() == _encode_by_hand(x.tolist(), keys, values.tolist(), default)


def test_label_encoder_defaults_per_version() -> None:
    x = strings_array(["a", "zz"])
    assert kernels.label_encoder_2(x, keys_strings=["a"], values_floats=[1.0]).tolist() == [
        1.0,
        -0.0,
    ]
    got = kernels.label_encoder_4(x, keys_strings=["a"], values_strings=["A"])
    assert got.tolist() == ["A", "_Unused"]
    got = kernels.label_encoder_4(
        x, keys_strings=["a"], values_int64s=[5], default_int64=7, default_tensor=np.array([9])
    )
    assert got.tolist() == [5, 9]  # default_tensor wins, as onnxruntime does
    repeated = kernels.label_encoder_4(x, keys_strings=["a", "a"], values_int64s=[1, 2])
    assert repeated.tolist() == [2, -1]  # the standard: the last repeated key takes precedence
    empty = kernels.label_encoder_4(np.zeros((0, 3), object), keys_strings=["a"], values_int64s=[1])
    assert empty.shape == (0, 3) and empty.dtype == np.int64


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"values_int64s": [1]}, "exactly one of keys_strings, keys_int64s, keys_floats, keys_t"),
        ({"keys_strings": ["a"], "keys_int64s": [1], "values_int64s": [1]}, "got keys_strings, k"),
        ({"keys_strings": ["a"]}, "exactly one of values_strings"),
        ({"keys_int64s": [1], "values_int64s": [1]}, r"input X is tensor\(string\) but the keys"),
        ({"keys_strings": ["a", "b"], "values_int64s": [1]}, "got 2 keys and 1 values"),
        (
            {"keys_strings": ["a"], "values_int64s": [1], "default_tensor": np.array([1, 2])},
            r"default_tensor must have shape \[1\]",
        ),
        (
            {"keys_strings": ["a"], "values_int64s": [1], "default_tensor": np.array([1.0])},
            r"default_tensor is tensor\(double\) but the values are tensor\(int64\)",
        ),
        (
            {"keys_tensor": np.array([["a"]]), "values_int64s": [1]},
            "attribute keys_tensor must be a 1-D tensor",
        ),
        ({"keys_tensor": np.array([1], np.uint8), "values_int64s": [1]}, "unsupported element"),
    ],
)
def test_label_encoder_4_errors(attrs: dict[str, Any], message: str) -> None:
    with pytest.raises(EvaluationError, match=f"LabelEncoder: .*{message}"):
        kernels.label_encoder_4(strings_array(["a"]), **attrs)


def test_label_encoder_errors_reach_the_caller_of_evaluate() -> None:
    node = helper.make_node(
        "LabelEncoder", ["X"], ["Y"], domain=ML, keys_int64s=[1, 2], values_int64s=[3]
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("X", TensorProto.INT64, [None])],
        [helper.make_tensor_value_info("Y", TensorProto.INT64, [None])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(ML, 2)])
    with pytest.raises(EvaluationError, match="LabelEncoder: keys_int64s and values_int64s"):
        oc.evaluate(model, {"X": np.array([1], np.int64)})
    with pytest.raises(EvaluationError, match=r"LabelEncoder: input X must be one of tensor\(st"):
        kernels.label_encoder_1(np.array([1.0]))


# -- Normalizer, Scaler ---------------------------------------------------------------------------


@st.composite
def rows_of(draw: st.DrawFn, ranks: tuple[int, ...]) -> np.ndarray:
    dtype = draw(st.sampled_from(NUMERIC))
    x = _numbers(draw, dtype, _shape(draw, ranks))
    if draw(st.booleans()) and x.ndim == 2 and x.shape[0] > 0:
        x[0] = 0  # a row whose divisor is zero stays as it is
    return x


@FAST
@given(rows_of((1, 2)), st.sampled_from(["MAX", "L1", "L2"]))
def test_normalizer_matches_onnxruntime(x: np.ndarray, norm: str) -> None:
    # onnxruntime flushes subnormal numbers to zero here (a row holding only 1e-39 gives
    # 1.2e-38, not 1.0, under MAX), and under L2 it squares in float32, the output's type,
    # whatever the input's (a float64 row of 1.2e-38 gives 1.2e-38, not 1.0), so a value
    # whose square leaves float32's normal range (1.7e-23: a row of it gives 1.7e-23, not
    # 1.0) is scaled wrongly: the oracle holds for numbers and squares normal in float32
    # only, and test_normalizer_of_subnormal_rows checks the others against the definition.
    if x.dtype.kind == "f":
        info = np.finfo(np.float32)
        assume(not np.any((x != 0) & (np.abs(x) < info.tiny)))
        if norm == "L2":
            magnitude = np.abs(x[x != 0]).astype(np.float64)
            assume(not np.any(magnitude < np.sqrt(info.tiny)))
            assume(not np.any(magnitude > np.sqrt(info.max)))
    X = _arg("X", str(x.dtype), x.shape)
    ours, theirs = evaluate_both([X], {"Y": ml4.Normalizer(X, norm=norm)}, {"X": x})
    # float32 results: a few units in the last place apart at most.
    assert_same_tensor(ours["Y"], theirs["Y"], rtol=1e-6, atol=1e-7)


def test_normalizer_of_subnormal_rows() -> None:
    """Subnormal rows scale by the definition: x / max x, x / sum|x|, x / sqrt(sum x^2)
    (float32 squares of 1e-39 would underflow to 0 and leave the row unscaled)."""
    tiny = np.float32(1e-39)
    x = np.array([[tiny, -2 * tiny], [3 * tiny, 0]], np.float32)
    np.testing.assert_array_equal(kernels.normalizer(x, norm="MAX"), [[1.0, -2.0], [1.0, 0]])
    np.testing.assert_allclose(
        kernels.normalizer(x, norm="L1"), [[1 / 3, -2 / 3], [1.0, 0]], rtol=1e-6
    )
    root5 = np.sqrt(5.0)
    np.testing.assert_allclose(
        kernels.normalizer(x, norm="L2"), [[1 / root5, -2 / root5], [1.0, 0]], rtol=1e-6
    )
    small = np.array([[1.665e-23]], np.float32)  # normal, but its square is not
    np.testing.assert_array_equal(kernels.normalizer(small, norm="L2"), [[1.0]])
    # float64 rows of float32's smallest normal number and of a float32 subnormal one
    edge = np.array([[1.1754943508222875e-38], [1e-39]], np.float64)
    for norm in ("MAX", "L1", "L2"):
        np.testing.assert_array_equal(kernels.normalizer(edge, norm=norm), [[1.0], [1.0]])
    big = np.array([[3e38, 3e38]], np.float32)  # squares past float32's range
    np.testing.assert_allclose(kernels.normalizer(big, norm="L2"), [[0.5**0.5] * 2], rtol=1e-6)


def test_normalizer_by_hand_and_errors() -> None:
    x = np.array([[-3.0, -1.0, 0.0], [2.0, -4.0, 2.0]], np.float32)
    got = kernels.normalizer(x, norm="MAX")
    np.testing.assert_array_equal(got, [[-3.0, -1.0, 0.0], [1.0, -2.0, 1.0]])  # max 0: kept
    np.testing.assert_allclose(kernels.normalizer(x, norm="L1")[1], [0.25, -0.5, 0.25])
    assert kernels.normalizer(np.zeros((0, 3), np.float32)).shape == (0, 3)
    with pytest.raises(EvaluationError, match="Normalizer: norm must be 'MAX', 'L1' or 'L2'"):
        kernels.normalizer(x, norm="L3")
    with pytest.raises(EvaluationError, match=r"Normalizer: input X must be \[N, C\] or \[C\]"):
        kernels.normalizer(np.ones((2, 2, 2), np.float32))


@FAST
@given(rows_of((1, 2, 3)), st.data())
def test_scaler(x: np.ndarray, data: st.DataObject) -> None:
    features = data.draw(st.sampled_from([1, x.shape[-1]]))
    offset = data.draw(st.lists(finite_float, min_size=features, max_size=features))
    scale = data.draw(st.lists(finite_float, min_size=features, max_size=features))
    expected = np.empty(x.shape, np.float64)
    for position in np.ndindex(*x.shape):
        at = 0 if features == 1 else position[-1]
        expected[position] = (float(x[position]) - offset[at]) * scale[at]
    got = kernels.scaler(x, offset=offset, scale=scale)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-4)
    # onnxruntime reads dim 1 as the features beyond rank 2; the standard's [N, F] ends there.
    if x.ndim <= 2:
        X = _arg("X", str(x.dtype), x.shape)
        Y = ml4.Scaler(X, offset=offset, scale=scale)
        ours, theirs = evaluate_both([X], {"Y": Y}, {"X": x})
        assert_same_tensor(ours["Y"], theirs["Y"], rtol=1e-6, atol=1e-4)


def test_scaler_defaults_and_errors() -> None:
    x = np.array([[1, 2], [3, 4]], np.int32)
    assert kernels.scaler(x, scale=[2.0]).tolist() == [[2, 4], [6, 8]]
    assert kernels.scaler(x, offset=[1.0, 2.0]).tolist() == [[0, 0], [2, 2]]
    with pytest.raises(EvaluationError, match="Scaler: offset and scale must have the same len"):
        kernels.scaler(x, offset=[1.0], scale=[1.0, 2.0])
    with pytest.raises(EvaluationError, match="offset must hold 1 value or one per feature"):
        kernels.scaler(x, offset=[1.0, 2.0, 3.0], scale=[1.0, 2.0, 3.0])
    with pytest.raises(EvaluationError, match="must not be empty"):
        kernels.scaler(x, offset=[], scale=[])


# -- OneHotEncoder --------------------------------------------------------------------------------


@st.composite
def one_hot_case(draw: st.DrawFn) -> tuple[np.ndarray, dict[str, Any]]:
    dtype = draw(st.sampled_from(("int64", "float32", "float64", "string")))
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=3)))
    if dtype == "string":
        return _tensor(draw, dtype, shape), {"cats_strings": draw(distinct(label, max_size=5))}
    size = math.prod(shape)
    if dtype == "int64":
        values: list[Any] = draw(st.lists(st.integers(-3, 5), min_size=size, max_size=size))
    else:
        halves = st.integers(-8, 12).map(lambda n: n / 2)
        values = draw(st.lists(halves, min_size=size, max_size=size))
    x = np.array(values, dtype=dtype).reshape(shape)
    return x, {"cats_int64s": draw(distinct(st.integers(-3, 5), max_size=5))}


@FAST
@given(one_hot_case())
def test_one_hot_encoder_matches_onnxruntime(case: tuple[np.ndarray, dict[str, Any]]) -> None:
    x, attrs = case
    dtype = "string" if x.dtype == object else str(x.dtype)
    X = _arg("X", dtype, x.shape)
    ours, theirs = evaluate_both([X], {"Y": ml4.OneHotEncoder(X, **attrs)}, {"X": x})
    assert_same_tensor(ours["Y"], theirs["Y"])


def test_one_hot_encoder_by_hand_and_errors() -> None:
    x = np.array([[3, 9], [-1, 3]], np.int32)  # int32: onnxruntime has no kernel
    got = kernels.one_hot_encoder(x, cats_int64s=[3, -1, 7])
    assert got.shape == (2, 2, 3)
    assert got.tolist() == [[[1, 0, 0], [0, 0, 0]], [[0, 1, 0], [1, 0, 0]]]
    odd = np.array([np.nan, np.inf, 1e30, -0.9], np.float32)  # no category; -0.9 is 0
    assert kernels.one_hot_encoder(odd, cats_int64s=[0]).tolist() == [[0], [0], [0], [1]]
    assert kernels.one_hot_encoder(np.int64(4), cats_int64s=[4, 5]).tolist() == [1, 0]
    with pytest.raises(EvaluationError, match="OneHotEncoder: value 9 of X is not a category"):
        kernels.one_hot_encoder(x, cats_int64s=[3, -1], zeros=0)
    with pytest.raises(EvaluationError, match=r"a tensor\(string\) input is looked up in cats_s"):
        kernels.one_hot_encoder(strings_array(["a"]), cats_int64s=[1])
    with pytest.raises(EvaluationError, match="exactly one of cats_int64s, cats_strings"):
        kernels.one_hot_encoder(x, cats_int64s=[1], cats_strings=["a"])


# -- ZipMap ---------------------------------------------------------------------------------------


@FAST
@given(
    st.one_of(distinct(label, max_size=4), distinct(small_int, max_size=4)),
    st.integers(0, 3),
    st.booleans(),
    st.data(),
)
def test_zip_map_matches_onnxruntime(
    labels: list[Any], rows: int, flat: bool, data: st.DataObject
) -> None:
    shape = (len(labels),) if flat else (rows, len(labels))
    x = _numbers(data.draw, "float32", shape)
    attr = "classlabels_strings" if isinstance(labels[0], str) else "classlabels_int64s"
    key = TensorProto.STRING if attr == "classlabels_strings" else TensorProto.INT64
    output = helper.make_sequence_type_proto(
        helper.make_map_type_proto(key, helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    )
    node = helper.make_node("ZipMap", ["X"], ["Y"], domain=ML, **{attr: labels})
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, None)],
        [helper.make_value_info("Y", output)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(ML, 1)])
    model.ir_version = 8
    theirs = onnxruntime_run(model, {"X": x})["Y"]
    ours = kernels.zip_map(x, **{attr: labels})
    assert len(ours) == len(theirs)
    for got, want in zip(ours, theirs):
        assert all(isinstance(v, np.float32) for v in got.values())
        assert {k: float(v) for k, v in got.items()} == want


def test_zip_map_model_matches_onnxruntime() -> None:
    X = oc.arg("X", np.float32, ("N", 3))
    outputs = {
        "by_text": ml4.ZipMap(X, classlabels_strings=["x", "y", "z"]),
        "by_number": ml4.ZipMap(X, classlabels_int64s=[7, 3, 5]),
    }
    x = np.array([[0.25, 0.5, 0.25], [1.0, 0.0, -1.0]], np.float32)
    ours, theirs = evaluate_both([X], outputs, {"X": x})
    for name in outputs:
        assert [{k: float(v) for k, v in m.items()} for m in ours[name]] == theirs[name]


def test_zip_map_errors() -> None:
    x = np.ones((2, 3), np.float32)
    with pytest.raises(EvaluationError, match="ZipMap: X has 3 columns but classlabels_int64s"):
        kernels.zip_map(x, classlabels_int64s=[1, 2])
    with pytest.raises(EvaluationError, match="ZipMap: exactly one of classlabels_int64s"):
        kernels.zip_map(x)
    with pytest.raises(EvaluationError, match=r"ZipMap: input X must be \[N, C\] or \[C\]"):
        kernels.zip_map(np.ones((1, 1, 2), np.float32), classlabels_int64s=[1, 2])
    with pytest.raises(EvaluationError, match=r"ZipMap: input X must be one of tensor\(float\)"):
        kernels.zip_map(x.astype(np.float64), classlabels_int64s=[1, 2, 3])


def test_zip_map_of_no_rows() -> None:
    assert kernels.zip_map(np.zeros((0, 2), np.float32), classlabels_strings=["a", "b"]) == []


def test_string_inputs_may_be_unicode_arrays() -> None:
    # numpy's fixed-width str arrays are read as the object arrays onnxcraft uses for strings.
    got = kernels.label_encoder_4(np.array(["b", "a"]), keys_strings=["a"], values_int64s=[1])
    assert got.tolist() == [-1, 1]
