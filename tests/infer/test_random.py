"""Rules of the random family: element types from ``dtype`` (or its default, or the input),
shapes from the ``shape`` attribute or the input, for every version; and agreement with the
evaluator on the values it draws."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import InferenceError
from onnxcraft.opset.ai.onnx import v15, v21, v22
from onnxcraft.types import Tensor
from tests.infer._agreement import evaluate_and_check

FLOAT, DOUBLE, HALF = ElementType.FLOAT, ElementType.DOUBLE, ElementType.FLOAT16
BF16, INT32, INT64 = ElementType.BFLOAT16, ElementType.INT32, ElementType.INT64


@pytest.mark.parametrize("opset", [v15, v21, v22])
def test_shape_attribute_ops_default_to_float(opset: ModuleType) -> None:
    assert opset.RandomNormal(shape=[2, 3]).type == Tensor(FLOAT, (2, 3))
    assert opset.RandomUniform(shape=[], dtype=np.float64).type == Tensor(DOUBLE, ())
    assert opset.RandomUniform(shape=[0, 4], dtype=np.float16).type == Tensor(HALF, (0, 4))


def test_bfloat16_outputs_start_at_version_22() -> None:
    assert v22.RandomNormal(shape=[1], dtype=BF16).type == Tensor(BF16, (1,))
    with pytest.raises(
        InferenceError, match=r"RandomNormal: dtype=16 \(bfloat16\) is not allowed at version 1"
    ):
        v21.RandomNormal(shape=[1], dtype=BF16)
    X = oc.arg("X", np.float32, (2,))
    assert v22.Bernoulli(X, dtype=BF16).type == Tensor(BF16, (2,))


@pytest.mark.parametrize("opset", [v21, v22])
def test_like_forms_keep_the_input_shape_symbols_included(opset: ModuleType) -> None:
    X = oc.arg("X", np.float16, ("N", None, 4))
    S = oc.arg("S", str, ("M",))
    assert opset.RandomNormalLike(X).type == Tensor(HALF, ("N", None, 4))
    assert opset.RandomUniformLike(X, dtype=np.float64).type == Tensor(DOUBLE, ("N", None, 4))
    assert opset.RandomUniformLike(S, dtype=np.float32).type == Tensor(FLOAT, ("M",))
    unknown = oc.arg("U", np.float32, None)
    assert opset.RandomNormalLike(unknown).type == Tensor(FLOAT, None)


def test_like_forms_need_dtype_when_the_input_type_is_not_a_float() -> None:
    X = oc.arg("X", np.int64, (3,))
    with pytest.raises(InferenceError, match="RandomUniformLike: the input's element type int64"):
        v22.RandomUniformLike(X)
    with pytest.raises(
        InferenceError, match="RandomNormalLike: dtype=7 \\(int64\\) is not allowed"
    ):
        v22.RandomNormalLike(X, dtype=np.int64)


@pytest.mark.parametrize("opset", [v15, v22])
def test_bernoulli_takes_the_input_type_unless_dtype_is_given(opset: ModuleType) -> None:
    P = oc.arg("P", np.float64, ("B", 5))
    assert opset.Bernoulli(P).type == Tensor(DOUBLE, ("B", 5))
    assert opset.Bernoulli(P, dtype=np.bool_).type == Tensor(ElementType.BOOL, ("B", 5))
    assert opset.Bernoulli(P, dtype=np.uint16).type == Tensor(ElementType.UINT16, ("B", 5))


@pytest.mark.parametrize("opset", [v15, v22])
def test_multinomial_is_batch_by_sample_size(opset: ModuleType) -> None:
    X = oc.arg("X", np.float32, ("B", 10))
    assert opset.Multinomial(X).type == Tensor(INT32, ("B", 1))
    assert opset.Multinomial(X, sample_size=6, dtype=np.int64).type == Tensor(INT64, ("B", 6))
    unknown = oc.arg("U", np.float32, None)
    assert opset.Multinomial(unknown, sample_size=2).type == Tensor(INT32, (None, 2))


def test_multinomial_rejects_what_the_evaluator_rejects() -> None:
    with pytest.raises(
        InferenceError, match=r"Multinomial: the input must be 2-D .* got shape \[3\]"
    ):
        v22.Multinomial(oc.arg("X", np.float32, (3,)))
    X = oc.arg("Y", np.float32, (2, 3))
    with pytest.raises(InferenceError, match="Multinomial: sample_size must be >= 1, got 0"):
        v22.Multinomial(X, sample_size=0)
    with pytest.raises(InferenceError, match=r"Multinomial: dtype=1 \(float\) is not allowed"):
        v22.Multinomial(X, dtype=np.float32)
    with pytest.raises(InferenceError, match="Multinomial: the input has no classes"):
        v22.Multinomial(oc.arg("Z", np.float32, ("B", 0)))


def test_shape_attribute_must_not_be_negative() -> None:
    with pytest.raises(InferenceError, match="RandomNormal: shape must not have negative dims"):
        v22.RandomNormal(shape=[2, -3])


@pytest.mark.parametrize("opset", [v15, v21, v22])
def test_rules_describe_what_the_evaluator_draws(opset: ModuleType) -> None:
    X = oc.arg("X", np.float64, ("N", 3))
    S = oc.arg("S", str, ("M",))
    outputs: dict[str, Any] = {
        "normal": opset.RandomNormal(shape=[4, 1], dtype=np.float16, seed=1.0),
        "uniform": opset.RandomUniform(shape=[2]),
        "normal_like": opset.RandomNormalLike(X),
        "uniform_like": opset.RandomUniformLike(S, dtype=np.float32),
        "bernoulli": opset.Bernoulli(X, dtype=np.int8),
        "multinomial": opset.Multinomial(X, sample_size=5, dtype=np.int64),
    }
    feeds = {"X": np.full((2, 3), 0.5), "S": np.array(["a", "b", "c"], dtype=object)}
    evaluate_and_check([X, S], outputs, feeds)


def test_rules_describe_bfloat16_draws() -> None:
    X = oc.arg("X", np.float32, (3,))
    outputs = {
        "normal": v22.RandomNormal(shape=[2, 2], dtype=BF16),
        "like": v22.RandomUniformLike(X, dtype=BF16),
        "bernoulli": v22.Bernoulli(X, dtype=BF16),
    }
    evaluate_and_check([X], outputs, {"X": np.full(3, 0.5, np.float32)})
