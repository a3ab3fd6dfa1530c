"""Inference rules of the attention family: Attention, TensorScatter, LinearAttention and
FlexAttention.

Static input shapes give fully static outputs equal to what the evaluator produces (checked on
generated shapes); symbolic dims propagate; clashing sizes are build-time InferenceErrors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.dtypes import ElementType
from onnxcraft.opset.ai.onnx import v23, v24, v26, v27
from onnxcraft.opset.ai.onnx.preview import v1 as preview
from onnxcraft.types import Tensor

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
F32 = np.float32


def _shape(var: oc.Var) -> Any:
    t = var.type
    assert isinstance(t, Tensor)
    return t.shape


def _arg(name: str, shape: tuple[Any, ...], dtype: Any = F32) -> oc.Var:
    return oc.arg(name, dtype, shape)


# -- Attention -----------------------------------------------------------------------------------


def test_attention_4d_with_past_is_fully_static() -> None:
    y, key, value, qk = v24.Attention(
        _arg("Q", (2, 6, 3, 8)),
        _arg("K", (2, 2, 3, 8)),
        _arg("V", (2, 2, 3, 5)),
        None,
        _arg("pk", (2, 2, 4, 8)),
        _arg("pv", (2, 2, 4, 5)),
    )
    assert _shape(y) == (2, 6, 3, 5)
    assert _shape(key) == (2, 2, 7, 8) and _shape(value) == (2, 2, 7, 5)
    assert _shape(qk) == (2, 6, 3, 7)


def test_attention_3d_packs_heads_into_the_last_dim() -> None:
    y, key, _, qk = v23.Attention(
        _arg("Q", (1, 4, 24)),
        _arg("K", (1, 6, 8)),
        _arg("V", (1, 6, 20)),
        q_num_heads=6,
        kv_num_heads=2,
    )
    assert _shape(y) == (1, 4, 60)  # 6 query heads of V's head size 10
    assert _shape(key) == (1, 2, 6, 4) and _shape(qk) == (1, 6, 4, 6)


def test_attention_symbols_propagate() -> None:
    y, key, value, qk = v24.Attention(
        _arg("Q", ("N", 4, "L", 8)), _arg("K", ("N", 4, "S", 8)), _arg("V", ("N", 4, "S", "E"))
    )
    assert _shape(y) == ("N", 4, "L", "E")
    assert _shape(key) == ("N", 4, "S", 8) and _shape(value) == ("N", 4, "S", "E")
    assert _shape(qk) == ("N", 4, "L", "S")
    # 3-D with as many query as key/value heads: Y is as wide as V, whatever that is.
    y = v24.Attention(
        _arg("Q", ("N", "L", 16)),
        _arg("K", ("N", "S", 16)),
        _arg("V", ("N", "S", "H")),
        q_num_heads=4,
        kv_num_heads=4,
    )[0]
    assert _shape(y) == ("N", "L", "H")


def test_attention_takes_each_dim_from_whichever_input_knows_it() -> None:
    y, key, _, _ = v24.Attention(
        _arg("Q", (None, 2, 3, None)), _arg("K", (5, 1, 4, 8)), _arg("V", (None, None, None, 6))
    )
    assert _shape(y) == (5, 2, 3, 6)
    assert _shape(key) == (5, 1, 4, 8)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: v24.Attention(
                _arg("Q", (1, 3, 2, 8)), _arg("K", (1, 2, 2, 8)), _arg("V", (1, 2, 2, 8))
            ),
            "not a multiple",
        ),
        (
            lambda: v24.Attention(
                _arg("Q", (1, 2, 2, 8)), _arg("K", (1, 2, 2, 4)), _arg("V", (1, 2, 2, 8))
            ),
            "head sizes disagree",
        ),
        (
            lambda: v24.Attention(
                _arg("Q", (1, 2, 2, 8)), _arg("K", (1, 2, 3, 8)), _arg("V", (1, 2, 4, 8))
            ),
            "sequence lengths disagree",
        ),
        (
            lambda: v24.Attention(
                _arg("Q", (2, 2, 2, 8)), _arg("K", (3, 2, 2, 8)), _arg("V", (3, 2, 2, 8))
            ),
            "batch sizes disagree",
        ),
        (
            lambda: v24.Attention(_arg("Q", (1, 2, 8)), _arg("K", (1, 2, 8)), _arg("V", (1, 2, 8))),
            "q_num_heads",
        ),
        (
            lambda: v24.Attention(
                _arg("Q", (1, 2, 9)),
                _arg("K", (1, 2, 8)),
                _arg("V", (1, 2, 8)),
                q_num_heads=2,
                kv_num_heads=2,
            ),
            "not divisible",
        ),
        (
            lambda: v24.Attention(
                _arg("Q", (1, 2, 2, 8)),
                _arg("K", (1, 2, 2, 8)),
                _arg("V", (1, 2, 2, 8)),
                q_num_heads=4,
            ),
            "disagrees",
        ),
        (
            lambda: v24.Attention(
                _arg("Q", (1, 2, 8)),
                _arg("K", (1, 2, 2, 8)),
                _arg("V", (1, 2, 2, 8)),
                q_num_heads=1,
            ),
            "same rank",
        ),
        (
            lambda: v24.Attention(
                _arg("Q", (1, 1, 2, 8)),
                _arg("K", (1, 1, 2, 8)),
                _arg("V", (1, 1, 2, 8)),
                None,
                _arg("pk", (1, 1, 3, 8)),
            ),
            "together",
        ),
        (
            lambda: v24.Attention(
                _arg("Q", (1, 1, 2, 8)),
                _arg("K", (1, 1, 2, 8)),
                _arg("V", (1, 1, 2, 8)),
                None,
                _arg("pk", (1, 1, 3, 8)),
                _arg("pv", (1, 1, 3, 8)),
                _arg("n", (1,), np.int64),
            ),
            "cannot be combined",
        ),
        (
            lambda: v24.Attention(
                _arg("Q", (1, 1, 2, 8)),
                _arg("K", (1, 1, 2, 8)),
                _arg("V", (1, 1, 2, 8)),
                None,
                None,
                None,
                _arg("n", (2,), np.int64),
            ),
            "batch sizes disagree",
        ),
    ],
)
def test_attention_clashes_are_build_errors(make: Any, message: str) -> None:
    with pytest.raises(oc.InferenceError, match=f"Attention: .*{message}"):
        make()


@st.composite
def attention_shapes(draw: st.DrawFn) -> tuple[dict[str, tuple[int, ...]], dict[str, Any]]:
    batch, kv_heads = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    q_heads = kv_heads * draw(st.integers(1, 2))
    q_len, kv_len, past = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(0, 3))
    head, v_head = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    attrs: dict[str, Any] = {}
    if draw(st.booleans()):
        shapes = {
            "Q": (batch, q_len, q_heads * head),
            "K": (batch, kv_len, kv_heads * head),
            "V": (batch, kv_len, kv_heads * v_head),
        }
        attrs = {"q_num_heads": q_heads, "kv_num_heads": kv_heads}
    else:
        shapes = {
            "Q": (batch, q_heads, q_len, head),
            "K": (batch, kv_heads, kv_len, head),
            "V": (batch, kv_heads, kv_len, v_head),
        }
    if past:
        shapes["past_key"] = (batch, kv_heads, past, head)
        shapes["past_value"] = (batch, kv_heads, past, v_head)
    return shapes, attrs


@SETTINGS
@given(attention_shapes())
def test_attention_inferred_shapes_are_the_evaluated_ones(
    case: tuple[dict[str, tuple[int, ...]], dict[str, Any]],
) -> None:
    shapes, attrs = case
    args = {name: _arg(name, shape) for name, shape in shapes.items()}
    outputs = v24.Attention(
        args["Q"], args["K"], args["V"], None, args.get("past_key"), args.get("past_value"), **attrs
    )
    names = ("Y", "present_key", "present_value", "qk")
    model = oc.build(inputs=list(args.values()), outputs=dict(zip(names, outputs)))
    feeds = {name: np.ones(shape, F32) for name, shape in shapes.items()}
    results = oc.evaluate(model, feeds)
    for name, var in zip(names, outputs):
        assert _shape(var) == results[name].shape, name


# -- TensorScatter -------------------------------------------------------------------------------


def test_tensor_scatter_keeps_the_cache_type() -> None:
    out = v24.TensorScatter(
        _arg("c", ("B", 4, 16, 8), np.float16), _arg("u", (None, 4, 1, 8), np.float16)
    )
    assert out.type == Tensor(ElementType.FLOAT16, ("B", 4, 16, 8))
    out = v24.TensorScatter(
        _arg("c", (None, 16, None)), _arg("u", (3, 2, 5)), _arg("i", ("B",), np.int64), axis=1
    )
    assert _shape(out) == (3, 16, 5)  # batch and last dim from the update


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: v24.TensorScatter(_arg("c", (1, 4, 8)), _arg("u", (1, 5, 8)), axis=1), "exceeds"),
        (lambda: v24.TensorScatter(_arg("c", (1, 4, 8)), _arg("u", (1, 2, 7)), axis=1), "disagree"),
        (
            lambda: v24.TensorScatter(_arg("c", (1, 4, 8)), _arg("u", (1, 2, 8)), axis=0),
            "batch dimension",
        ),
        (lambda: v24.TensorScatter(_arg("c", (1, 4, 8)), _arg("u", (1, 2)), axis=1), "rank"),
        (
            lambda: v24.TensorScatter(
                _arg("c", (2, 4, 8)), _arg("u", (2, 2, 8)), _arg("i", (3,), np.int64), axis=1
            ),
            "disagree",
        ),
    ],
)
def test_tensor_scatter_clashes_are_build_errors(make: Any, message: str) -> None:
    with pytest.raises(oc.InferenceError, match=f"TensorScatter: .*{message}"):
        make()


def test_tensor_scatter_attributes_outside_the_spec_are_refused_at_the_call() -> None:
    cache, update = _arg("c", (1, 4, 8)), _arg("u", (1, 2, 8))
    with pytest.raises(oc.OpAttributeError, match=r"TensorScatter: attribute 'axis' .* -3 … 2"):
        v24.TensorScatter(cache, update, axis=3)
    with pytest.raises(oc.OpAttributeError, match="'linear', 'circular', got 'ring'"):
        v24.TensorScatter(cache, update, mode="ring")  # type: ignore[arg-type]


# -- LinearAttention -----------------------------------------------------------------------------


def _linear(*shapes: Any, dtype: Any = F32, **attrs: Any) -> list[oc.Var]:
    names = ("query", "key", "value", "past_state", "decay", "beta")
    args = [None if s is None else _arg(n, s, dtype) for n, s in zip(names, shapes)]
    attrs.setdefault("q_num_heads", 8)
    attrs.setdefault("kv_num_heads", 4)
    return list(v27.LinearAttention(*args, **attrs))


def test_linear_attention_is_fully_static() -> None:
    out, state = _linear((2, 5, 64), (2, 5, 32), (2, 5, 48), None, (2, 5, 32), (2, 5, 1))
    assert _shape(out) == (2, 5, 96) and _shape(state) == (2, 4, 8, 12)


def test_linear_attention_symbols_and_past_state() -> None:
    out, state = _linear(
        ("B", "T", 64),
        ("B", "T", 32),
        ("B", "T", 32),
        None,
        ("B", "T", 4),
        ("B", "T", 4),
        dtype=np.float16,
    )
    assert out.type == Tensor(ElementType.FLOAT16, ("B", "T", 64))
    assert _shape(state) == ("B", 4, 8, 8)
    # Sizes missing from the packed inputs come from past_state.
    out, state = _linear(
        ("B", "T", None), ("B", "T", None), ("B", "T", None), (None, 4, 8, 6), update_rule="linear"
    )
    assert _shape(out) == ("B", "T", 48) and _shape(state) == ("B", 4, 8, 6)
    out, _ = _linear(
        ("B", "T", "D"), ("B", "T", "D"), ("B", "T", "E"), q_num_heads=4, update_rule="linear"
    )
    assert _shape(out) == ("B", "T", "E")


@pytest.mark.parametrize(
    ("shapes", "attrs", "message"),
    [
        (((1, 2, 64), (1, 2, 32), (1, 2, 32)), {}, "requires the decay input"),
        (
            ((1, 2, 64), (1, 2, 32), (1, 2, 32), None, None),
            {"update_rule": "delta"},
            "requires the beta input",
        ),
        (
            ((1, 2, 64), (1, 2, 32), (1, 2, 32)),
            {"q_num_heads": 6, "update_rule": "linear"},
            "not a multiple",
        ),
        (
            ((1, 2, 64), (1, 2, 48), (1, 2, 32)),
            {"update_rule": "linear"},
            "key head sizes disagree",
        ),
        (
            ((1, 2, 64), (1, 3, 32), (1, 2, 32)),
            {"update_rule": "linear"},
            "sequence lengths disagree",
        ),
        (((1, 2, 64), (1, 2, 30), (1, 2, 32)), {"update_rule": "linear"}, "not divisible"),
        (
            ((1, 2, 64), (1, 2, 32), (1, 2, 32), (1, 2, 8, 8)),
            {"update_rule": "linear"},
            "head counts disagree",
        ),
        (
            ((1, 2, 64), (1, 2, 32), (1, 2, 32), None, (1, 2, 5)),
            {"update_rule": "gated"},
            "decay's last dimension",
        ),
        (
            ((1, 2, 64), (1, 2, 32), (1, 2, 32), None, None, (1, 2, 2)),
            {"update_rule": "delta"},
            "beta's last dimension",
        ),
        (((1, 2, 64, 1), (1, 2, 32), (1, 2, 32)), {"update_rule": "linear"}, "3-D"),
    ],
)
def test_linear_attention_clashes_are_build_errors(
    shapes: tuple[Any, ...], attrs: dict[str, Any], message: str
) -> None:
    with pytest.raises(oc.InferenceError, match=f"LinearAttention: .*{message}"):
        _linear(*shapes, **attrs)


def test_linear_attention_update_rule_outside_the_spec_is_refused_at_the_call() -> None:
    with pytest.raises(oc.OpAttributeError, match="'gated_delta', got 'slow'"):
        _linear((1, 2, 64), (1, 2, 32), (1, 2, 32), update_rule="slow")


# -- FlexAttention -------------------------------------------------------------------------------


def test_flex_attention_shapes_and_symbols() -> None:
    y = preview.FlexAttention(
        _arg("Q", (2, 8, 4, 16)), _arg("K", (2, 2, 6, 16)), _arg("V", (2, 2, 6, 32))
    )
    assert _shape(y) == (2, 8, 4, 32)
    y = preview.FlexAttention(
        _arg("Q", ("B", "H", "L", 16), np.float16),
        _arg("K", (None, 2, "S", 16), np.float16),
        _arg("V", (3, None, "S", "E"), np.float16),
    )
    assert y.type == Tensor(ElementType.FLOAT16, (3, "H", "L", "E"))


def test_flex_attention_body_of_the_wrong_precision_is_a_build_error() -> None:
    scores = [oc.Tensor(np.float64, ("B", "H", "L", "S"))]
    body = oc.subgraph(lambda s: [v26.Neg(s)], scores)
    q = _arg("Q", (1, 1, 2, 4))
    with pytest.raises(oc.InferenceError, match="FlexAttention: score_mod must return float"):
        preview.FlexAttention(q, q, q, score_mod=body)
    # With softmax_precision=double the same body is right.
    y = preview.FlexAttention(q, q, q, score_mod=body, softmax_precision=11)
    assert _shape(y) == (1, 1, 2, 4)


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        (((1, 3, 2, 4), (1, 2, 2, 4), (1, 2, 2, 4)), "not a multiple"),
        (((1, 2, 2, 4), (1, 2, 2, 5), (1, 2, 2, 4)), "head sizes disagree"),
        (((1, 2, 2, 4), (1, 2, 3, 4), (1, 2, 2, 4)), "sequence lengths disagree"),
        (((1, 2, 2, 4), (1, 2, 2, 4), (1, 1, 2, 4)), "head counts disagree"),
        (((1, 2, 2, 4), (1, 2, 2, 4), (1, 2, 4)), "must be 4-D"),
    ],
)
def test_flex_attention_clashes_are_build_errors(shapes: tuple[Any, ...], message: str) -> None:
    q, k, v = (_arg(n, s) for n, s in zip("QKV", shapes))
    with pytest.raises(oc.InferenceError, match=f"FlexAttention: .*{message}"):
        preview.FlexAttention(q, k, v)
