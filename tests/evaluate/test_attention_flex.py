"""The FlexAttention kernel (onnxruntime has none) against the definition written as loops.

The score_mod / prob_mod bodies are real ONNX graphs built with onnxcraft; the oracle applies
the same modification with numpy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.errors import EvaluationError
from onnxcraft.ops.flex_attention.kernels import flex_attention
from onnxcraft.opset.ai.onnx import v26 as op
from onnxcraft.opset.ai.onnx.preview import v1 as preview
from tests.evaluate._attention_oracle import loop_flex_attention

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SCORES = ("B", "H", "L", "S")


def _positions(s: oc.Var) -> tuple[oc.Var, oc.Var]:
    """Query and key indices of the scores, shaped (L, 1) and (S,) to broadcast."""

    def length(axis: int) -> oc.Var:
        return op.Squeeze(op.Shape(s, start=axis, end=axis + 1), np.array([0], np.int64))

    zero, one = np.array(0, np.int64), np.array(1, np.int64)
    rows = op.Unsqueeze(op.Range(zero, length(2), one), np.array([1], np.int64))
    return rows, op.Range(zero, length(3), one)


def _bias(s: oc.Var) -> list[oc.Var]:
    return [op.Add(s, op.CastLike(np.float32(0.5), s))]


def _causal(s: oc.Var) -> list[oc.Var]:
    rows, cols = _positions(s)
    return [op.Where(op.GreaterOrEqual(rows, cols), s, op.CastLike(np.float32(-np.inf), s))]


def _relative(s: oc.Var) -> list[oc.Var]:
    rows, cols = _positions(s)
    return [op.Add(s, op.CastLike(op.Sub(rows, cols), s))]


def _softcap(s: oc.Var) -> list[oc.Var]:
    cap = op.CastLike(np.float32(2.0), s)
    return [op.Mul(op.Tanh(op.Div(s, cap)), cap)]


def _rows_cols(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.arange(x.shape[0])[:, None], np.arange(x.shape[1])[None, :]


# (ONNX body, numpy equivalent on one head's (L, S) scores)
SCORE_MODS: dict[str, tuple[Callable[[oc.Var], list[oc.Var]], Callable[..., np.ndarray]]] = {
    "bias": (_bias, lambda x, b, h: x + 0.5),
    "causal": (_causal, lambda x, b, h: np.where(_rows_cols(x)[0] >= _rows_cols(x)[1], x, -np.inf)),
    "relative": (_relative, lambda x, b, h: x + (_rows_cols(x)[0] - _rows_cols(x)[1])),
    "softcap": (_softcap, lambda x, b, h: 2.0 * np.tanh(x / 2.0)),
}


def _halve(p: oc.Var) -> list[oc.Var]:
    return [op.Mul(p, op.CastLike(np.float32(0.5), p))]


@st.composite
def flex_cases(draw: st.DrawFn, dtype: Any) -> dict[str, Any]:
    batch, kv_heads = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    q_heads = kv_heads * draw(st.integers(1, 3))
    length, keys = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    head, v_head = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    return {
        "q": rng.standard_normal((batch, q_heads, length, head)).astype(dtype),
        "k": rng.standard_normal((batch, kv_heads, keys, head)).astype(dtype),
        "v": rng.standard_normal((batch, kv_heads, keys, v_head)).astype(dtype),
        "scale": draw(st.sampled_from([None, 0.25, 1.5])),
        "score_mod": draw(st.sampled_from([None, *SCORE_MODS])),
        "prob_mod": draw(st.booleans()),
    }


def _run(case: dict[str, Any]) -> np.ndarray:
    q, k, v = case["q"], case["k"], case["v"]
    work = np.float64 if q.dtype == np.float64 else np.float32
    body_type = [oc.Tensor(work, SCORES)]
    names = ("Q", "K", "V")
    args = [oc.arg(n, x.dtype, x.shape) for n, x in zip(names, (q, k, v))]
    attrs: dict[str, Any] = {}
    if case["scale"] is not None:
        attrs["scale"] = case["scale"]
    if case["score_mod"] is not None:
        attrs["score_mod"] = oc.subgraph(SCORE_MODS[case["score_mod"]][0], body_type)
    if case["prob_mod"]:
        attrs["prob_mod"] = oc.subgraph(_halve, body_type)
    y = preview.FlexAttention(*args, **attrs)
    model = oc.build(inputs=args, outputs={"Y": y})
    return np.asarray(oc.evaluate(model, dict(zip(names, (q, k, v))))["Y"])


def _oracle(case: dict[str, Any]) -> np.ndarray:
    mod = None if case["score_mod"] is None else SCORE_MODS[case["score_mod"]][1]
    return loop_flex_attention(
        case["q"],
        case["k"],
        case["v"],
        scale=case["scale"],
        score_mod=mod,
        prob_mod=(lambda p: 0.5 * p) if case["prob_mod"] else None,
    )


@SETTINGS
@given(flex_cases(np.float32))
def test_flex_attention_float32_matches_the_definition(case: dict[str, Any]) -> None:
    got = _run(case)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, _oracle(case), rtol=1e-4, atol=1e-5)


@SETTINGS
@given(flex_cases(np.float64))
def test_flex_attention_double_stays_double(case: dict[str, Any]) -> None:
    got = _run(case)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, _oracle(case), rtol=1e-10, atol=1e-12)


@SETTINGS
@given(flex_cases(np.float16))
def test_flex_attention_float16_rounds_scores_then_the_result(case: dict[str, Any]) -> None:
    got = _run(case)
    assert got.dtype == np.float16
    # The scores agree exactly; the float32 softmax and product then differ from float64 by
    # far less than a float16 step, so the result is within one unit in the last place.
    np.testing.assert_allclose(got.astype(np.float64), _oracle(case), rtol=2.0**-10, atol=2.0**-24)


def test_fully_masked_row_is_nan_as_in_the_function_body() -> None:
    body = oc.subgraph(
        lambda s: [op.Mul(s, op.CastLike(np.float32(-np.inf), s))], [oc.Tensor(np.float32, SCORES)]
    )
    Q, K, V = (oc.arg(n, np.float32, (1, 1, 2, 1)) for n in "QKV")
    model = oc.build(
        inputs=[Q, K, V], outputs={"Y": preview.FlexAttention(Q, K, V, score_mod=body)}
    )
    ones = np.ones((1, 1, 2, 1), np.float32)
    # scores are 1 * 1 = 1 per key; times -inf: every key masked.
    y = oc.evaluate(model, {"Q": ones, "K": ones, "V": ones})["Y"]
    assert np.isnan(y).all()


def test_softmax_precision_double_feeds_double_to_the_modifier() -> None:
    q = np.random.default_rng(1).standard_normal((1, 2, 3, 4)).astype(np.float32)
    seen: list[np.dtype[Any]] = []

    class Recorder:
        input_names = ("scores",)
        output_names = ("out",)

        def __call__(self, *inputs: Any) -> list[Any]:
            seen.append(inputs[0].dtype)
            return [inputs[0]]

    y = flex_attention(q, q, q, score_mod=Recorder(), softmax_precision=11)
    assert seen == [np.dtype(np.float64)] and y.dtype == np.float32
    np.testing.assert_allclose(y, flex_attention(q, q, q), rtol=1e-5, atol=1e-6)


class _Fixed:
    """A stand-in body returning fixed outputs."""

    input_names = ("x",)
    output_names = ("y",)

    def __init__(self, *outputs: Any) -> None:
        self.outputs = list(outputs)

    def __call__(self, *inputs: Any) -> list[Any]:
        return self.outputs


_X = np.ones((1, 2, 3, 4), np.float32)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: flex_attention(_X[0], _X[0], _X[0]), "Q must be 4-D"),
        (lambda: flex_attention(_X, _X[:, :, :, :3], _X), "head size"),
        (lambda: flex_attention(_X, _X[:, :1], _X), "same heads and sequence length"),
        (lambda: flex_attention(np.ones((1, 3, 3, 4), np.float32), _X, _X), "not a multiple"),
        (lambda: flex_attention(_X, _X, _X.astype(np.float64)), "element type of Q"),
        (lambda: flex_attention(_X, _X, _X, softmax_precision=7), "softmax_precision"),
        (lambda: flex_attention(_X, _X, _X, score_mod=_Fixed()), "exactly one output"),
        (
            lambda: flex_attention(_X, _X, _X, score_mod=_Fixed(np.ones((1, 2, 3), np.float32))),
            "keep the shape",
        ),
        (
            lambda: flex_attention(_X, _X, _X, prob_mod=_Fixed(np.ones((1, 2, 3, 3)))),
            "must produce float",
        ),
    ],
)
def test_flex_attention_rejects_bad_input_clearly(call: Any, message: str) -> None:
    with pytest.raises(EvaluationError, match=f"FlexAttention: .*{message}"):
        call()


def test_modifiers_may_be_plain_callables_typed_from_the_inputs() -> None:
    Q = oc.arg("Q", np.float32, ("B", 2, 3, 4))
    K = oc.arg("K", np.float32, ("B", 2, 5, 4))
    V = oc.arg("V", np.float32, ("B", 2, 5, 4))
    seen: list[Any] = []

    def score_mod(scores: oc.Var) -> list[oc.Var]:
        seen.append(scores.type)
        return [op.Mul(scores, 0.5)]

    y = preview.FlexAttention(Q, K, V, score_mod=score_mod, prob_mod=_halve)
    # The body sees the (B, Hq, L, S) scores in the softmax precision (float32 here).
    assert seen == [oc.Tensor(np.float32, ("B", 2, 3, 5))]
    rng = np.random.default_rng(3)
    q = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    k = rng.standard_normal((1, 2, 5, 4)).astype(np.float32)
    v = rng.standard_normal((1, 2, 5, 4)).astype(np.float32)
    got = oc.evaluate(oc.build([Q, K, V], {"Y": y}), {"Q": q, "K": k, "V": v})["Y"]
    expected = loop_flex_attention(
        q, k, v, score_mod=lambda s, b, h: 0.5 * s, prob_mod=lambda p: 0.5 * p
    )
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
