"""Attention and TensorScatter kernels.

float32 Attention is compared with onnxruntime on generated shapes and options; bfloat16 and
float16 Attention with the function body evaluated by numpy in that type (they must agree bit
for bit: the kernel reproduces the body's rounding of every step); the parts onnxruntime does
not implement as the standard says are checked on small hand-computed cases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.errors import EvaluationError
from onnxcraft.ops.attention.kernels import attention, tensor_scatter
from onnxcraft.opset.ai.onnx import v24, v25
from tests.evaluate._attention_oracle import (
    BF16,
    body_attention,
    evaluate,
    from_onnxcraft,
    loop_tensor_scatter,
    run_onnxruntime,
    to_onnxcraft,
)

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- Attention against onnxruntime (float32) -----------------------------------------------------


@dataclass
class Case:
    """One generated Attention call: its inputs (by name) and attributes."""

    inputs: dict[str, np.ndarray]
    attrs: dict[str, Any]


@st.composite
def attention_cases(draw: st.DrawFn) -> Case:
    batch = draw(st.integers(1, 2))
    kv_heads = draw(st.integers(1, 3))
    q_heads = kv_heads * draw(st.integers(1, 3))
    q_len, kv_len = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    head, v_head = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    past_len = draw(st.integers(0, 3))
    is_causal = draw(st.integers(0, 1))
    if past_len and is_causal:
        # onnxruntime aligns the causal mask to the last key; the standard to the past length
        # (test_causal_mask_is_offset_by_the_past_and_by_nonpad_lengths): they coincide when
        # the new keys are as many as the queries.
        kv_len = q_len
    three_d = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)

    def tensor(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    def packed(x: np.ndarray) -> np.ndarray:
        return x.transpose(0, 2, 1, 3).reshape(x.shape[0], x.shape[2], -1) if three_d else x

    inputs = {
        "Q": packed(tensor(batch, q_heads, q_len, head)),
        "K": packed(tensor(batch, kv_heads, kv_len, head)),
        "V": packed(tensor(batch, kv_heads, kv_len, v_head)),
    }
    attrs: dict[str, Any] = {"is_causal": is_causal}
    if three_d:
        attrs.update(q_num_heads=q_heads, kv_num_heads=kv_heads)
    if past_len:
        inputs["past_key"] = tensor(batch, kv_heads, past_len, head)
        inputs["past_value"] = tensor(batch, kv_heads, past_len, v_head)
    total = past_len + kv_len
    mask_kind = draw(st.sampled_from(["none", "bool", "float"]))
    if mask_kind != "none":
        mask_shape = draw(
            st.sampled_from([(q_len, total), (1, q_heads, q_len, total), (batch, 1, q_len, total)])
        )
        if mask_kind == "bool":
            mask = rng.random(mask_shape) < 0.7
            mask[..., 0] = True  # keep a key per row: fully masked rows are tested elsewhere
        else:
            mask = tensor(*mask_shape)
        inputs["attn_mask"] = mask
    if draw(st.booleans()):
        attrs["scale"] = draw(st.sampled_from([0.0625, 0.3, 1.0, 1.7]))
    if draw(st.booleans()):
        attrs["softcap"] = draw(st.sampled_from([0.5, 2.0, 4.5]))
    attrs["qk_matmul_output_mode"] = draw(st.integers(0, 3))
    return Case(inputs, attrs)


def _attention_model(case: Case, module: Any = v24) -> Any:
    args = {name: oc.arg(name, x.dtype, x.shape) for name, x in case.inputs.items()}
    outputs = module.Attention(
        args["Q"],
        args["K"],
        args["V"],
        args.get("attn_mask"),
        args.get("past_key"),
        args.get("past_value"),
        args.get("nonpad_kv_seqlen"),
        **case.attrs,
    )
    names = ["Y", "present_key", "present_value", "qk_matmul_output"]
    return oc.build(inputs=list(args.values()), outputs=dict(zip(names, outputs)))


def _compare(got: list[np.ndarray], want: list[np.ndarray], what: list[str]) -> None:
    for g, w, name in zip(got, want, what):
        assert g.dtype == w.dtype and g.shape == w.shape, name
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6, err_msg=name)


@SETTINGS
@given(attention_cases())
def test_attention_float32_matches_onnxruntime(case: Case) -> None:
    model = _attention_model(case)
    got, want = evaluate(model, case.inputs), run_onnxruntime(model, case.inputs)
    names = ["Y", "present_key", "present_value", "qk_matmul_output"]
    if case.attrs["qk_matmul_output_mode"] == 2:
        # onnxruntime writes a disallowed position of the biased scores as the lowest float,
        # the standard as -inf (the bias of a False mask entry).
        lowest = np.finfo(np.float32).min
        want[3] = np.where(want[3] == lowest, -np.inf, want[3]).astype(np.float32)
    _compare(got, want, names)


@SETTINGS
@given(attention_cases(), st.data())
def test_attention_nonpad_kv_seqlen_matches_onnxruntime(case: Case, data: st.DataObject) -> None:
    case.inputs.pop("past_key", None)
    case.inputs.pop("past_value", None)
    case.attrs["qk_matmul_output_mode"] = 0
    case.inputs.pop("attn_mask", None)
    k = case.inputs["K"]
    kv_len, batch = k.shape[-2], k.shape[0]
    case.inputs["nonpad_kv_seqlen"] = np.array(
        data.draw(st.lists(st.integers(1, kv_len), min_size=batch, max_size=batch)), np.int64
    )
    model = _attention_model(case)
    got, want = evaluate(model, case.inputs), run_onnxruntime(model, case.inputs)
    _compare(got[:1], want[:1], ["Y"])


def test_qk_output_mode_2_includes_causal_bias() -> None:
    q = np.ones((1, 1, 2, 2), np.float32)
    k = np.array([[[[1, 0], [0, 1], [1, 1]]]], np.float32)
    v = np.arange(6, dtype=np.float32).reshape(1, 1, 3, 2)
    mask = np.array([[0.5, -1.0, 2.0], [0.0, 0.25, 0.0]], np.float32)
    _, _, _, qk = attention(q, k, v, mask, is_causal=1, scale=1.0, qk_matmul_output_mode=2)
    raw = np.array([[1, 1, 2], [1, 1, 2]], np.float32)
    causal = np.array([[0, -np.inf, -np.inf], [0, 0, -np.inf]], np.float32)
    np.testing.assert_array_equal(qk[0, 0], raw + mask + causal)


# -- Attention in low precision: the function body, bit for bit -----------------------------------


@st.composite
def lowp_cases(draw: st.DrawFn) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    dtype = draw(st.sampled_from([BF16, np.float16]))
    batch, kv_heads = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    q_heads = kv_heads * draw(st.integers(1, 2))
    q_len, kv_len, head = draw(st.integers(1, 5)), draw(st.integers(1, 8)), draw(st.integers(1, 8))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    inputs = {
        "q": rng.random((batch, q_heads, q_len, head)).astype(dtype),
        "k": rng.random((batch, kv_heads, kv_len, head)).astype(dtype),
        "v": rng.random((batch, kv_heads, kv_len, head)).astype(dtype),
    }
    options: dict[str, Any] = {"is_causal": draw(st.booleans())}
    if draw(st.booleans()):
        inputs["mask"] = rng.random((q_len, kv_len)).astype(dtype)
    if draw(st.booleans()):
        options["scale"] = draw(st.sampled_from([0.1, 0.3, 1.0]))
    if draw(st.booleans()):
        options["softcap"] = draw(st.sampled_from([0.5, 2.0]))
    return inputs, options


@SETTINGS
@given(lowp_cases())
def test_attention_low_precision_reproduces_the_function_body(
    case: tuple[dict[str, np.ndarray], dict[str, Any]],
) -> None:
    inputs, options = case
    want = body_attention(inputs["q"], inputs["k"], inputs["v"], mask=inputs.get("mask"), **options)
    mask = inputs.get("mask")
    y, *_ = attention(
        to_onnxcraft(inputs["q"]),
        to_onnxcraft(inputs["k"]),
        to_onnxcraft(inputs["v"]),
        None if mask is None else to_onnxcraft(mask),
        is_causal=int(options["is_causal"]),
        scale=options.get("scale"),
        softcap=options.get("softcap", 0.0),
    )
    got = from_onnxcraft(y)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.astype(np.float32), want.astype(np.float32))


def test_bfloat16_softmax_adds_in_bfloat16() -> None:
    # 257 equal logits: each exp is 1. Added one by one in bfloat16 the sum stalls at 256
    # (256 + 1 is a tie that rounds back to the even 256), so every probability is 1/256, not
    # the 1/257 a float32 sum would give.
    v = np.ones((1, 1, 257, 1), BF16)
    q = np.zeros((1, 1, 1, 1), BF16)
    y, _, _, probs = attention(
        to_onnxcraft(q), to_onnxcraft(v), to_onnxcraft(v), qk_matmul_output_mode=3
    )
    p = from_onnxcraft(probs).astype(np.float32)
    np.testing.assert_array_equal(p, np.full_like(p, 1 / 256))
    # Y = 257 / 256 = 1 + 2**-8 in the float32 MatMul sum: a tie, rounded to the even 1.0.
    assert from_onnxcraft(y).astype(np.float32).item() == 1.0


# -- Attention: the standard's rules on hand-computed cases ---------------------------------------


def _uniform(shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape, np.float32)


def test_short_mask_is_padded_with_disallowed_keys() -> None:
    # Equal scores: the probabilities are uniform over the allowed keys.
    v = np.arange(4, dtype=np.float32).reshape(1, 1, 4, 1)
    y, *_ = attention(
        _uniform((1, 1, 1, 2)), _uniform((1, 1, 4, 2)), v, np.array([True, False, True])
    )
    assert y.item() == pytest.approx((0 + 2) / 2)
    y, *_ = attention(
        _uniform((1, 1, 1, 2)), _uniform((1, 1, 4, 2)), v, np.array([0.0, 0.0], np.float32)
    )
    assert y.item() == pytest.approx((0 + 1) / 2)


def test_causal_mask_is_offset_by_the_past_and_by_nonpad_lengths() -> None:
    v = np.arange(5, dtype=np.float32).reshape(1, 1, 5, 1)
    q = _uniform((1, 1, 2, 1))
    # past of 2 + 3 new keys: query 0 sits at position 2 and sees keys 0..2.
    y, *_ = attention(
        q,
        _uniform((1, 1, 3, 1)),
        v[:, :, 2:],
        None,
        _uniform((1, 1, 2, 1)),
        v[:, :, :2],
        is_causal=1,
    )
    np.testing.assert_allclose(y[0, 0, :, 0], [1.0, 1.5])
    # external cache of 5 slots, 4 valid: the 2 queries are the last valid positions 2 and 3.
    y, *_ = attention(q, _uniform((1, 1, 5, 1)), v, None, None, None, np.array([4]), is_causal=1)
    np.testing.assert_allclose(y[0, 0, :, 0], [1.0, 1.5])


def test_windows_limit_keys_around_the_query_position() -> None:
    v = np.arange(6, dtype=np.float32).reshape(1, 1, 6, 1)
    q, k = _uniform((1, 1, 6, 1)), _uniform((1, 1, 6, 1))
    y, *_ = attention(q, k, v, left_window_size=1, right_window_size=1)
    np.testing.assert_allclose(y[0, 0, :, 0], [0.5, 1, 2, 3, 4, 4.5])
    y, *_ = attention(q, k, v, is_causal=1, left_window_size=2)
    np.testing.assert_allclose(y[0, 0, :, 0], [0, 0.5, 1, 2, 3, 4])


def test_fully_masked_rows_give_zeros() -> None:
    q, k, v = _uniform((1, 1, 2, 1)), _uniform((1, 1, 3, 1)), np.ones((1, 1, 3, 1), np.float32)
    mask = np.array([[False, False, False], [True, True, True]])
    y, _, _, probs = attention(q, k, v, mask, qk_matmul_output_mode=3)
    np.testing.assert_array_equal(y[0, 0, :, 0], [0, 1])
    np.testing.assert_array_equal(probs[0, 0, 0], [0, 0, 0])
    # A negative offset (more queries than valid keys) empties the first rows.
    y, *_ = attention(_uniform((1, 1, 3, 1)), k, v, None, None, None, np.array([2]), is_causal=1)
    np.testing.assert_array_equal(y[0, 0, :, 0], [0, 1, 1])


def test_softmax_precision_double_on_float32() -> None:
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 2, 3, 4)).astype(np.float32) for _ in range(3))
    plain = attention(q, k, v)[0]
    wide = attention(q, k, v, softmax_precision=11)[0]
    assert wide.dtype == np.float32
    np.testing.assert_allclose(wide, plain, rtol=1e-5, atol=1e-6)


def test_opset_25_window_through_the_model() -> None:
    q = oc.arg("Q", np.float32, (1, 1, 4, 1))
    k = oc.arg("K", np.float32, (1, 1, 4, 1))
    v = oc.arg("V", np.float32, (1, 1, 4, 1))
    y = v25.Attention(q, k, v, left_window_size=0, right_window_size=0)[0]
    model = oc.build(inputs=[q, k, v], outputs={"Y": y})
    values = np.arange(4, dtype=np.float32).reshape(1, 1, 4, 1)
    out = oc.evaluate(model, {"Q": values, "K": values, "V": values})["Y"]
    np.testing.assert_array_equal(out, values)  # each query sees only its own key


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: attention(
                np.ones((1, 2, 3), np.float32),
                np.ones((1, 2, 3), np.float32),
                np.ones((1, 2, 3), np.float32),
            ),
            "q_num_heads",
        ),
        (
            lambda: attention(
                np.ones((1, 2, 6), np.float32),
                np.ones((1, 2, 6), np.float32),
                np.ones((1, 2, 6), np.float32),
                q_num_heads=4,
                kv_num_heads=2,
            ),
            "not divisible",
        ),
        (
            lambda: attention(
                np.ones((1, 3, 2, 4), np.float32),
                np.ones((1, 2, 2, 4), np.float32),
                np.ones((1, 2, 2, 4), np.float32),
            ),
            "not a multiple",
        ),
        (
            lambda: attention(
                np.ones((1, 2, 2, 4), np.float32),
                np.ones((1, 2, 2, 3), np.float32),
                np.ones((1, 2, 2, 4), np.float32),
            ),
            "head size",
        ),
        (
            lambda: attention(
                np.ones((1, 2, 2, 4), np.float32),
                np.ones((1, 2, 2, 4), np.float32),
                np.ones((1, 2, 3, 4), np.float32),
            ),
            "sequence length",
        ),
        (
            lambda: attention(
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((1, 1, 2, 4), np.float32),
                None,
                np.ones((1, 1, 1, 4), np.float32),
            ),
            "together",
        ),
        (
            lambda: attention(
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((3, 2), np.float32),
            ),
            "does not broadcast",
        ),
        (
            lambda: attention(
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((2, 3), np.float32),
            ),
            "exceeds",
        ),
        (
            lambda: attention(
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((1, 1, 2, 4), np.float32),
                None,
                None,
                None,
                np.array([1, 2]),
            ),
            "nonpad_kv_seqlen",
        ),
        (
            lambda: attention(
                np.ones((1, 1, 2, 4), np.int32),
                np.ones((1, 1, 2, 4), np.int32),
                np.ones((1, 1, 2, 4), np.int32),
            ),
            "Q must be one of",
        ),
        (
            lambda: attention(
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((1, 1, 2, 4), np.float32),
                softmax_precision=7,
            ),
            "softmax_precision",
        ),
        (
            lambda: attention(
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((1, 1, 2, 4), np.float32),
                np.ones((1, 1, 2, 4), np.float32),
                qk_matmul_output_mode=4,
            ),
            "qk_matmul_output_mode",
        ),
    ],
)
def test_attention_rejects_bad_input_clearly(call: Any, message: str) -> None:
    with pytest.raises(EvaluationError, match=f"Attention: .*{message}"):
        call()


# -- TensorScatter ---------------------------------------------------------------------------------


@st.composite
def scatter_cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int, str]:
    rank = draw(st.integers(2, 4))
    shape = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    axis = draw(st.integers(1, rank - 1))
    mode = draw(st.sampled_from(["linear", "circular"]))
    capacity = shape[axis]
    length = draw(st.integers(0, capacity))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    cache = rng.standard_normal(shape).astype(np.float32)
    update_shape = list(shape)
    update_shape[axis] = length
    update = rng.standard_normal(update_shape).astype(np.float32)
    high = capacity - length if mode == "linear" else 3 * capacity
    starts = None
    if draw(st.booleans()):
        starts = np.array(
            draw(st.lists(st.integers(0, high), min_size=shape[0], max_size=shape[0])), np.int64
        )
    negative_axis = draw(st.booleans())
    return cache, update, starts, axis - rank if negative_axis else axis, mode


@SETTINGS
@given(scatter_cases())
def test_tensor_scatter_matches_onnxruntime_and_the_pseudocode(
    case: tuple[np.ndarray, np.ndarray, np.ndarray | None, int, str],
) -> None:
    cache, update, starts, axis, mode = case
    zeros = np.zeros(cache.shape[0], np.int64)
    want = loop_tensor_scatter(
        cache, update, zeros if starts is None else starts, axis=axis, mode=mode
    )
    got = tensor_scatter(cache, update, starts, axis=axis, mode=mode)
    np.testing.assert_array_equal(got, want)
    if update.shape[axis]:  # onnxruntime rejects an empty update
        past = oc.arg("past", np.float32, cache.shape)
        new = oc.arg("new", np.float32, update.shape)
        index = oc.arg("index", np.int64, (cache.shape[0],))
        out = v24.TensorScatter(past, new, index, axis=axis, mode=mode)
        model = oc.build(inputs=[past, new, index], outputs={"present": out})
        feeds = {"past": cache, "new": update, "index": zeros if starts is None else starts}
        np.testing.assert_array_equal(run_onnxruntime(model, feeds)[0], want)


def test_tensor_scatter_keeps_any_element_type() -> None:
    cache = np.array([["a", "b", "c"], ["d", "e", "f"]], dtype=object)
    update = np.array([["x"], ["y"]], dtype=object)
    got = tensor_scatter(cache, update, np.array([2, 0]), axis=1, mode="circular")
    np.testing.assert_array_equal(got, [["a", "b", "x"], ["y", "e", "f"]])
    bf = to_onnxcraft(np.arange(6, dtype=BF16).reshape(1, 6, 1))
    got = from_onnxcraft(tensor_scatter(bf, bf[:, :2], np.array([5]), axis=1, mode="circular"))
    np.testing.assert_array_equal(got[0, :, 0].astype(np.float32), [1, 1, 2, 3, 4, 0])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"write_indices": np.array([2])}, "mode='linear' needs"),
        ({"write_indices": np.array([-1])}, "mode='linear' needs"),
        ({"write_indices": np.array([0, 0])}, "write_indices must be an integer vector"),
        ({"axis": 0}, "batch dimension"),
        ({"axis": 3}, "out of range"),
        ({"mode": "ring"}, "mode must be"),
        ({"update": np.ones((1, 5, 2), np.float32)}, "update must have past_cache's shape"),
        ({"update": np.ones((1, 2, 3), np.float32)}, "update must have past_cache's shape"),
        ({"update": np.ones((1, 2, 2), np.float64)}, "element type"),
    ],
)
def test_tensor_scatter_rejects_bad_input_clearly(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {
        "past_cache": np.zeros((1, 3, 2), np.float32),
        "update": np.ones((1, 2, 2), np.float32),
    }
    args.update(kwargs)
    with pytest.raises(EvaluationError, match=f"TensorScatter: .*{message}"):
        tensor_scatter(**args)
