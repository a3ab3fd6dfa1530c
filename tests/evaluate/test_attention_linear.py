"""The LinearAttention kernel against onnxruntime and the recurrence written as plain loops."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.errors import EvaluationError
from onnxcraft.ops.linear_attention.kernels import linear_attention
from onnxcraft.opset.ai.onnx import v27
from tests.evaluate._attention_oracle import (
    BF16,
    evaluate,
    from_onnxcraft,
    loop_linear_attention,
    run_onnxruntime,
    to_onnxcraft,
)

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
INPUTS = ("query", "key", "value", "past_state", "decay", "beta")


@dataclass
class Case:
    inputs: dict[str, np.ndarray]
    attrs: dict[str, Any] = field(default_factory=dict)

    def oracle(self) -> tuple[np.ndarray, np.ndarray]:
        wide = {k: v.astype(np.float64) for k, v in self.inputs.items()}
        return loop_linear_attention(
            wide["query"],
            wide["key"],
            wide["value"],
            q_heads=self.attrs["q_num_heads"],
            kv_heads=self.attrs["kv_num_heads"],
            rule=self.attrs["update_rule"],
            past=wide.get("past_state"),
            decay=wide.get("decay"),
            beta=wide.get("beta"),
            scale=self.attrs.get("scale", 0.0),
        )


@st.composite
def linear_cases(draw: st.DrawFn, dtype: Any = np.float32) -> Case:
    batch, length = draw(st.integers(1, 2)), draw(st.integers(1, 5))
    kv_heads = draw(st.integers(1, 3))
    q_heads = kv_heads * draw(st.integers(1, 3))
    d_k, d_v = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    rule = draw(st.sampled_from(["linear", "gated", "delta", "gated_delta"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    key = rng.standard_normal((batch, length, kv_heads, d_k))
    key /= np.linalg.norm(key, axis=-1, keepdims=True)  # the delta rules expect unit keys
    inputs = {
        "query": rng.standard_normal((batch, length, q_heads * d_k)),
        "key": key.reshape(batch, length, -1),
        "value": rng.standard_normal((batch, length, kv_heads * d_v)),
    }
    if draw(st.booleans()):
        inputs["past_state"] = rng.standard_normal((batch, kv_heads, d_k, d_v))
    if rule in ("gated", "gated_delta"):
        per_key = draw(st.booleans())
        width = kv_heads * d_k if per_key else kv_heads
        inputs["decay"] = -rng.random((batch, length, width))  # log of a rate in (1/e, 1]
    if rule in ("delta", "gated_delta"):
        width = kv_heads if draw(st.booleans()) else 1
        inputs["beta"] = rng.random((batch, length, width))
    attrs: dict[str, Any] = {"q_num_heads": q_heads, "kv_num_heads": kv_heads, "update_rule": rule}
    if draw(st.booleans()):
        attrs["scale"] = draw(st.sampled_from([0.25, 1.0, 3.0]))
    return Case({k: v.astype(dtype) for k, v in inputs.items()}, attrs)


def _model(case: Case) -> Any:
    args = {name: oc.arg(name, x.dtype, x.shape) for name, x in case.inputs.items()}
    output, state = v27.LinearAttention(*(args.get(name) for name in INPUTS), **case.attrs)
    return oc.build(inputs=list(args.values()), outputs={"output": output, "state": state})


@SETTINGS
@given(linear_cases())
def test_linear_attention_matches_the_recurrence_and_onnxruntime(case: Case) -> None:
    model = _model(case)
    got = evaluate(model, case.inputs)
    for g, w, name in zip(got, case.oracle(), ("output", "present_state")):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=name)
    for g, w, name in zip(got, run_onnxruntime(model, case.inputs), ("output", "present_state")):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=name)


def _half_ulp_close(got: np.ndarray, exact: np.ndarray, bits: int, name: str) -> None:
    """``got`` is ``exact`` rounded to a type of ``bits`` significant bits.

    A float32 computation rounded once stays within half a unit in the last place of the
    type (relative 2**-bits) plus float32's own error; near zero a small absolute slack.
    """
    np.testing.assert_allclose(got, exact, rtol=2.0**-bits + 1e-5, atol=1e-4, err_msg=name)


@SETTINGS
@given(
    st.sampled_from([(np.float16, 11), (BF16, 8)]).flatmap(
        lambda t: st.tuples(st.just(t[1]), linear_cases(t[0]))
    )
)
def test_linear_attention_low_precision_rounds_a_float32_result(case: tuple[int, Case]) -> None:
    bits, lowp = case
    got = linear_attention(
        *(None if (x := lowp.inputs.get(name)) is None else to_onnxcraft(x) for name in INPUTS),
        **lowp.attrs,
    )
    for g, w, name in zip(got, lowp.oracle(), ("output", "present_state")):
        decoded = from_onnxcraft(g)
        assert decoded.dtype == lowp.inputs["query"].dtype
        _half_ulp_close(decoded.astype(np.float64), w, bits, name)


@settings(max_examples=15, deadline=None)
@given(linear_cases())
def test_one_call_equals_token_by_token_calls(case: Case) -> None:
    # The definition: running T tokens at once is running them one after the other.
    whole = linear_attention(*(case.inputs.get(name) for name in INPUTS), **case.attrs)
    state = case.inputs.get("past_state")
    pieces = []
    for t in range(case.inputs["query"].shape[1]):
        step = {name: x[:, t : t + 1] for name, x in case.inputs.items() if name != "past_state"}
        out, state = linear_attention(
            step["query"],
            step["key"],
            step["value"],
            state,
            step.get("decay"),
            step.get("beta"),
            **case.attrs,
        )
        pieces.append(out)
    np.testing.assert_allclose(np.concatenate(pieces, axis=1), whole[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state, whole[1], rtol=1e-5, atol=1e-6)


def test_hand_computed_linear_rule() -> None:
    # One head, d_k = d_v = 1: S_t = S_{t-1} + k_t v_t, o_t = q_t S_t / sqrt(1).
    q = np.array([[[1.0], [2.0]]], np.float32)
    k = np.array([[[1.0], [1.0]]], np.float32)
    v = np.array([[[3.0], [4.0]]], np.float32)
    out, state = linear_attention(q, k, v, q_num_heads=1, kv_num_heads=1, update_rule="linear")
    np.testing.assert_array_equal(out[0, :, 0], [3.0, 14.0])
    np.testing.assert_array_equal(state.reshape(-1), [7.0])
    # Gated with decay log(0.5): S_2 = 0.5 * 3 + 4 = 5.5; delta with beta 1 replaces v.
    decay = np.log(np.full((1, 2, 1), 0.5, np.float32))
    out, _ = linear_attention(
        q, k, v, None, decay, q_num_heads=1, kv_num_heads=1, update_rule="gated"
    )
    np.testing.assert_allclose(out[0, :, 0], [3.0, 11.0], rtol=1e-6)
    beta = np.ones((1, 2, 1), np.float32)
    out, state = linear_attention(
        q, k, v, None, None, beta, q_num_heads=1, kv_num_heads=1, update_rule="delta"
    )
    np.testing.assert_allclose(out[0, :, 0], [3.0, 8.0], rtol=1e-6)


def _inputs(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "query": np.ones((1, 2, 8), np.float32),
        "key": np.ones((1, 2, 4), np.float32),
        "value": np.ones((1, 2, 4), np.float32),
        "past_state": None,
        "decay": np.zeros((1, 2, 2), np.float32),
        "beta": np.ones((1, 2, 2), np.float32),
        "q_num_heads": 4,
        "kv_num_heads": 2,
    }
    base.update(overrides)
    return base


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"decay": None}, "requires the decay input"),
        ({"beta": None}, "requires the beta input"),
        ({"update_rule": "softmax"}, "update_rule must be one of"),
        ({"q_num_heads": 3}, "positive multiple of kv_num_heads"),
        ({"kv_num_heads": None}, "required"),
        ({"query": np.ones((1, 2, 2, 4), np.float32)}, "query must be 3-D"),
        ({"query": np.ones((1, 2, 6), np.float32)}, "not divisible"),
        ({"key": np.ones((1, 2, 6), np.float32)}, "key head size 3 differs"),
        ({"value": np.ones((1, 3, 4), np.float32)}, "share \\(batch, sequence\\)"),
        ({"decay": np.zeros((1, 2, 3), np.float32)}, "decay must have shape"),
        ({"beta": np.ones((1, 2, 3), np.float32)}, "beta must have shape"),
        ({"past_state": np.zeros((1, 2, 2, 3), np.float32)}, "past_state must have shape"),
        ({"value": np.ones((1, 2, 4), np.float16)}, "element type of query"),
    ],
)
def test_linear_attention_rejects_bad_input_clearly(
    overrides: dict[str, Any], message: str
) -> None:
    args = _inputs(**overrides)
    positional = [args.pop(name) for name in INPUTS]
    with pytest.raises(EvaluationError, match=f"LinearAttention: .*{message}"):
        linear_attention(*positional, **args)
