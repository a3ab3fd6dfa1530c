"""Inference rules of the ai.onnx.ml transforms: exact types with symbols carried through,
build-time errors for malformed attributes, and agreement with what the evaluator returns."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

import onnxcraft as oc
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import InferenceError, OpAttributeError
from onnxcraft.opset.ai.onnx.ml import v1 as ml1
from onnxcraft.opset.ai.onnx.ml import v2 as ml2
from onnxcraft.opset.ai.onnx.ml import v4 as ml4
from onnxcraft.types import Map, Sequence, Tensor
from tests.evaluate._ml_transforms import (
    ML,
    assert_type_matches,
    label,
    strings_array,
)

F32, F64, I16, I32, I64, STR = (
    ElementType.FLOAT,
    ElementType.DOUBLE,
    ElementType.INT16,
    ElementType.INT32,
    ElementType.INT64,
    ElementType.STRING,
)


def _x(shape: Any, elem: Any = np.float32, name: str = "X") -> oc.Var:
    return oc.arg(name, elem, shape)


# -- exact types ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x_shape", "y_shape", "expected"),
    [
        (("N", 5), (3,), ("N", 3)),
        (("N", 5), ("K",), ("N", "K")),
        (("N", 5), (1, "K"), ("N", "K")),
        (("N", 5), (2, "K"), ("N", None)),
        (("N", 5), (2, 2), ("N", 4)),
        (("B", "T", 4), (), ("B", "T", 1)),
        ((5,), (3,), (1, 3)),
        (("N", 5), None, ("N", None)),
        (None, (3,), None),
    ],
)
def test_array_feature_extractor_shapes(x_shape: Any, y_shape: Any, expected: Any) -> None:
    Z = ml4.ArrayFeatureExtractor(_x(x_shape, STR), oc.arg("Y", np.int64, y_shape))
    assert Z.type == Tensor(STR, expected)


@pytest.mark.parametrize("elem", [F32, F64, I32, I64])
def test_same_type_rules(elem: ElementType) -> None:
    X = _x(("N", 3), elem)
    assert ml4.Binarizer(X, threshold=0.5).type == Tensor(elem, ("N", 3))
    imputed = "imputed_value_floats" if elem in (F32, F64) else "imputed_value_int64s"
    assert ml4.Imputer(X, **{imputed: [1, 2, 3]}).type == Tensor(elem, ("N", 3))
    assert ml4.Scaler(X, offset=[1.0], scale=[2.0]).type == Tensor(F32, ("N", 3))
    assert ml4.Normalizer(X, norm="L2").type == Tensor(F32, ("N", 3))


def test_encoder_types() -> None:
    S, I = _x(("N", "C"), STR, "S"), _x(("M",), I64, "I")
    assert ml4.CategoryMapper(S, cats_int64s=[1], cats_strings=["a"]).type == Tensor(
        I64, ("N", "C")
    )
    assert ml4.CategoryMapper(I, cats_int64s=[1], cats_strings=["a"]).type == Tensor(STR, ("M",))
    assert ml1.LabelEncoder(S, classes_strings=["a"]).type == Tensor(I64, ("N", "C"))
    assert ml1.LabelEncoder(I, classes_strings=["a"]).type == Tensor(STR, ("M",))
    assert ml2.LabelEncoder(S, keys_strings=["a"], values_floats=[1.0]).type == Tensor(
        F32, ("N", "C")
    )
    coded = ml4.LabelEncoder(S, keys_strings=["a", "b"], values_tensor=np.array([1, 2], np.int16))
    assert coded.type == Tensor(I16, ("N", "C"))
    D = _x(("K",), np.float64, "D")
    texts = ml4.LabelEncoder(D, keys_tensor=np.array([0.5]), values_tensor=np.array(["x"]))
    assert texts.type == Tensor(STR, ("K",))
    assert ml4.OneHotEncoder(S, cats_strings=["a", "b", "c"]).type == Tensor(F32, ("N", "C", 3))
    assert ml4.OneHotEncoder(I, cats_int64s=[4]).type == Tensor(F32, ("M", 1))


@pytest.mark.parametrize(
    ("shapes", "sizes", "rows"),
    [
        ([("N", 2), ("N", 3, 2)], [2, 5], "N"),
        ([(3,), (1, 4)], [3, 4], 1),
        ([("N", 2), (4, 2)], [1, 1], 4),
        ([("N", 2), ("M", 2)], [2, 2], None),
        ([None, ("N", 2)], [2, 2], "N"),
    ],
)
def test_feature_vectorizer_shapes(shapes: list[Any], sizes: list[int], rows: Any) -> None:
    args = [_x(shape, np.float64, f"X{i}") for i, shape in enumerate(shapes)]
    Y = ml4.FeatureVectorizer(*args, inputdimensions=sizes)
    assert Y.type == Tensor(F32, (rows, sum(sizes)))


def test_map_operator_types() -> None:
    X = _x(("N", 3))
    zipped = ml4.ZipMap(X, classlabels_strings=["a", "b", "c"])
    assert zipped.type == Sequence(Map(STR, Tensor(F32, ())))
    assert ml4.ZipMap(X, classlabels_int64s=[1, 2, 3]).type == Sequence(Map(I64, Tensor(F32, ())))
    M = oc.arg("M", oc.Map(np.int64, oc.Tensor(np.float32, ())))
    assert ml4.CastMap(M, cast_to="TO_STRING").type == Tensor(STR, (1, None))
    sparse = ml4.CastMap(M, cast_to="TO_INT64", map_form="SPARSE", max_map=7)
    assert sparse.type == Tensor(I64, (1, 7))
    D = oc.arg("D", oc.Map(np.str_, oc.Tensor(np.float64, ())))
    assert ml4.DictVectorizer(D, string_vocabulary=["a", "b", "c"]).type == Tensor(F64, (1, 3))


# -- build-time errors ----------------------------------------------------------------------------


def _errors() -> list[tuple[Callable[[], Any], str]]:
    S, I, F = _x(("N",), STR, "S"), _x(("N",), I64, "I"), _x(("N", 3), np.float32, "F")
    return [
        (lambda: ml4.ArrayFeatureExtractor(_x((), STR), _x((1,), I64, "Y")), "rank >= 1"),
        (lambda: ml4.CategoryMapper(S, cats_int64s=[1]), "both cats_int64s and cats_strings"),
        (lambda: ml4.CategoryMapper(S, cats_int64s=[1], cats_strings=[]), "same length"),
        (lambda: ml4.FeatureVectorizer(F, F, inputdimensions=[3]), "1 entries for 2 inputs"),
        (lambda: ml4.FeatureVectorizer(F), "inputdimensions must be set"),
        (
            lambda: ml4.FeatureVectorizer(_x((3, 3)), _x((4, 3), name="G"), inputdimensions=[1, 1]),
            r"same number of rows, got \[3, 4\]",
        ),
        (lambda: ml4.Imputer(F, imputed_value_int64s=[1]), "needs imputed_value_floats"),
        (lambda: ml4.Imputer(F, imputed_value_floats=[1.0, 2.0]), "got 2 values for an input"),
        (lambda: ml4.Imputer(F), "exactly one of imputed_value_floats, imputed_value_int64s"),
        (lambda: ml2.LabelEncoder(S, keys_int64s=[1], values_int64s=[1]), "but the keys"),
        (lambda: ml2.LabelEncoder(S, keys_strings=["a"], values_int64s=[1, 2]), "1 keys and 2"),
        (lambda: ml4.LabelEncoder(S, keys_strings=["a"]), "exactly one of values_strings"),
        (
            lambda: ml4.LabelEncoder(
                S, keys_strings=["a"], values_int64s=[1], default_tensor=np.array([1.5])
            ),
            r"default_tensor is tensor\(double\)",
        ),
        (
            lambda: ml4.LabelEncoder(
                S, keys_strings=["a"], values_int64s=[1], default_tensor=np.array(1)
            ),
            r"default_tensor must have shape \[1\]",
        ),
        (lambda: ml4.Normalizer(_x((1, 2, 3))), r"\[N, C\] or \[C\]"),
        (lambda: ml4.OneHotEncoder(S, cats_int64s=[1]), "looked up in cats_strings"),
        (lambda: ml4.OneHotEncoder(I), "exactly one of cats_int64s, cats_strings"),
        (lambda: ml4.Scaler(F, offset=[1.0, 2.0], scale=[1.0]), "same length"),
        (lambda: ml4.Scaler(F, offset=[1.0, 2.0], scale=[1.0, 2.0]), "one per feature"),
    ]


@pytest.mark.parametrize("index", range(len(_errors())))
def test_malformed_attributes_fail_at_build_time(index: int) -> None:
    make, message = _errors()[index]
    with pytest.raises(InferenceError, match=message):
        make()


def test_modes_outside_the_spec_are_refused_at_the_call() -> None:
    with pytest.raises(OpAttributeError, match=r"Normalizer: .*'MAX', 'L1', 'L2', got 'L0'"):
        ml4.Normalizer(_x(("N", 3)), norm="L0")  # type: ignore[arg-type]
    M = oc.arg("M", oc.Map(np.int64, oc.Tensor(np.float32, ())))
    with pytest.raises(OpAttributeError, match=r"CastMap: .*'TO_INT64', got 'TO_BOOL'"):
        ml4.CastMap(M, cast_to="TO_BOOL")  # type: ignore[arg-type]


def test_malformed_map_operators_fail_at_build_time() -> None:
    X = _x(("N", 3))
    with pytest.raises(InferenceError, match="ZipMap: X has 3 columns but classlabels_strings"):
        ml4.ZipMap(X, classlabels_strings=["a"])
    with pytest.raises(InferenceError, match="ZipMap: exactly one of classlabels_int64s"):
        ml4.ZipMap(X)
    M = oc.arg("M", oc.Map(np.int64, oc.Tensor(np.float32, ())))
    with pytest.raises(InferenceError, match="CastMap: max_map must be > 0"):
        ml4.CastMap(M, map_form="SPARSE", max_map=0)
    with pytest.raises(InferenceError, match="DictVectorizer: input X is map"):
        ml4.DictVectorizer(M, string_vocabulary=["a"])


# -- rules agree with the evaluator ---------------------------------------------------------------

Case = tuple[list[oc.Var], oc.Var, dict[str, Any]]


def _dims(draw: st.DrawFn, count: int) -> tuple[int, ...]:
    return tuple(draw(st.lists(st.integers(0, 3), min_size=count, max_size=count)))


def _floats(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    return (np.arange(math.prod(shape)) % 5 - 2).astype(dtype).reshape(shape)


def _labels(draw: st.DrawFn, shape: tuple[int, ...]) -> np.ndarray:
    return strings_array([draw(label) for _ in range(math.prod(shape))], shape)


def _afe_case(draw: st.DrawFn) -> Case:
    n, k = draw(st.integers(0, 3)), draw(st.integers(1, 4))
    X, Y = _x(("N", k)), oc.arg("Y", np.int64, ("K",))
    picks = np.array(draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=4)), np.int64)
    return [X, Y], ml4.ArrayFeatureExtractor(X, Y), {"X": _floats((n, k)), "Y": picks}


def _encoder_case(draw: st.DrawFn) -> Case:
    shape = _dims(draw, draw(st.integers(1, 3)))
    S = _x(("A", "B", "C")[: len(shape)], STR, "S")
    version = draw(st.sampled_from(["v1", "v2", "v4", "category", "one_hot"]))
    make = {
        "v1": lambda: ml1.LabelEncoder(S, classes_strings=["a", "b"]),
        "v2": lambda: ml2.LabelEncoder(S, keys_strings=["a"], values_strings=["A"]),
        "v4": lambda: ml4.LabelEncoder(
            S, keys_strings=["a"], values_tensor=np.array([2.5], np.float64)
        ),
        "category": lambda: ml4.CategoryMapper(S, cats_int64s=[1], cats_strings=["a"]),
        "one_hot": lambda: ml4.OneHotEncoder(S, cats_strings=["a", "b"]),
    }[version]
    return [S], make(), {"S": _labels(draw, shape)}


def _numeric_case(draw: st.DrawFn) -> Case:
    n, f = draw(st.integers(0, 3)), draw(st.integers(1, 3))
    dtype = draw(st.sampled_from([np.float32, np.float64, np.int64, np.int32]))
    X = _x(("N", "F"), dtype)
    imputed = "imputed_value_floats" if np.dtype(dtype).kind == "f" else "imputed_value_int64s"
    make = draw(
        st.sampled_from(
            [
                lambda: ml4.Binarizer(X),
                lambda: ml4.Imputer(X, **{imputed: [1]}),
                lambda: ml4.Normalizer(X, norm="L1"),
                lambda: ml4.Scaler(X, offset=[0.5], scale=[2.0]),
                lambda: ml4.OneHotEncoder(X, cats_int64s=[0, 1, 2]),
            ]
        )
    )
    return [X], make(), {"X": _floats((n, f), dtype)}


def _vectorizer_case(draw: st.DrawFn) -> Case:
    n = draw(st.integers(0, 3))
    A, B = _x(("N", 2), np.int64, "A"), _x(("N", 2, 2), np.int64, "B")
    sizes = draw(st.lists(st.integers(0, 5), min_size=2, max_size=2))
    feeds = {"A": _floats((n, 2), np.int64), "B": _floats((n, 2, 2), np.int64)}
    return [A, B], ml4.FeatureVectorizer(A, B, inputdimensions=sizes), feeds


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([_afe_case, _encoder_case, _numeric_case, _vectorizer_case]), st.data())
def test_inferred_types_describe_evaluated_values(
    make_case: Callable[[st.DrawFn], Case], data: st.DataObject
) -> None:
    inputs, output, feeds = make_case(data.draw)
    value = oc.evaluate(oc.build(inputs=inputs, outputs={"out": output}), feeds)["out"]
    assert_type_matches(output.type, value)


@settings(max_examples=20, deadline=None)
@given(
    st.dictionaries(st.integers(0, 5), st.floats(-3, 3, width=32), max_size=4),
    st.integers(0, 3),
)
def test_inferred_map_types_describe_evaluated_values(mapping: dict[int, float], rows: int) -> None:
    M = oc.arg("M", oc.Map(np.int64, oc.Tensor(np.float32, ())))
    X = _x(("N", 2))
    outputs = {
        "dense": ml4.CastMap(M, cast_to="TO_STRING"),
        "sparse": ml4.CastMap(M, map_form="SPARSE", max_map=6),
        "vector": ml4.DictVectorizer(M, int64_vocabulary=[0, 2, 4]),
        "zipped": ml4.ZipMap(X, classlabels_int64s=[10, 20]),
    }
    model = oc.build(inputs=[M, X], outputs=outputs)
    values = oc.evaluate(model, {"M": mapping, "X": _floats((rows, 2))})
    for name, var in outputs.items():
        assert_type_matches(var.type, values[name])


# -- onnx models ----------------------------------------------------------------------------------


def test_infer_shapes_agrees_with_onnx_on_an_onnx_model() -> None:
    nodes = [
        helper.make_node(
            "LabelEncoder",
            ["s"],
            ["l"],
            domain=ML,
            keys_strings=["a"],
            values_tensor=helper.make_tensor("v", TensorProto.INT16, [1], [3]),
        ),
        helper.make_node("OneHotEncoder", ["s"], ["h"], domain=ML, cats_strings=["a", "b"]),
        helper.make_node("ArrayFeatureExtractor", ["s", "i"], ["e"], domain=ML),
        helper.make_node(
            "CategoryMapper", ["s"], ["c"], domain=ML, cats_strings=["a"], cats_int64s=[1]
        ),
    ]
    inputs = [
        helper.make_tensor_value_info("s", TensorProto.STRING, ["B", 3]),
        helper.make_tensor_value_info("i", TensorProto.INT64, [2]),
    ]
    outputs = [helper.make_value_info(name, onnx.TypeProto()) for name in "lhec"]
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(ML, 4)])
    ours = onnx.load_from_string(oc.infer_shapes(model).SerializeToString())
    theirs = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    for mine, reference in zip(ours.graph.output, theirs.graph.output):
        assert mine.type == reference.type, mine.name


def test_infer_shapes_of_zip_map_matches_onnx() -> None:
    node = helper.make_node("ZipMap", ["x"], ["z"], domain=ML, classlabels_strings=["a", "b"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
        [helper.make_value_info("z", onnx.TypeProto())],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(ML, 1)])
    ours = onnx.load_from_string(oc.infer_shapes(model).SerializeToString())
    theirs = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    assert ours.graph.output[0].type == theirs.graph.output[0].type
