"""The Attention kernel (opsets 23–25): scaled dot-product attention with caches and masks.

Q, K and V are 4-D ``(batch, heads, sequence, head_size)`` or 3-D ``(batch, sequence,
heads * head_size)``. K/V heads are shared by groups of query heads (GQA/MQA). The bias applied
to the scores combines the boolean or float ``attn_mask``, the offset-aware causal mask, the
padding given by ``nonpad_kv_seqlen`` and the left/right windows; rows with no allowed key give
zeros rather than NaN. Arithmetic runs in float32 (float64 for double inputs).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.evaluate._versions import versions
from onnxcraft.evaluate.common import fail, is_lowp
from onnxcraft.evaluate.registry import KernelRegistry

__all__ = ["register", "attention"]


def _wide(x: np.ndarray) -> np.ndarray:
    if is_lowp(x):
        from onnxcraft.numerics import to_float32

        return to_float32(x)
    return x.astype(np.float64 if x.dtype == np.float64 else np.float32)


def _narrow(x: np.ndarray, like: np.ndarray) -> np.ndarray:
    if is_lowp(like):
        from onnxcraft.numerics import from_float32

        return from_float32(x.astype(np.float32), element_type_of(like.dtype))
    return x.astype(like.dtype)


def _to_4d(op: str, x: np.ndarray, heads: int | None, name: str) -> np.ndarray:
    if x.ndim == 4:
        return x
    if x.ndim != 3:
        fail(op, f"{name} must be 3-D or 4-D, got shape {list(x.shape)}")
    if not heads:
        fail(op, f"{name} is 3-D: the number of heads attribute (q_num_heads / kv_num_heads) is required")
    batch, length, hidden = x.shape
    if hidden % heads:
        fail(op, f"{name}: hidden size {hidden} is not divisible by {heads} heads")
    return x.reshape(batch, length, heads, hidden // heads).transpose(0, 2, 1, 3)


def _softmax(scores: np.ndarray, precision: int | None) -> np.ndarray:
    work = scores
    if precision is not None and ElementType(precision) == ElementType.DOUBLE:
        work = scores.astype(np.float64)
    peak = np.max(work, axis=-1, keepdims=True)
    masked_row = ~np.isfinite(peak)
    exp = np.exp(work - np.where(masked_row, 0, peak))
    total = np.sum(exp, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        probs = exp / total
    return np.where(masked_row | (total == 0), 0, probs).astype(scores.dtype)


def attention(
    q: Any,
    k: Any,
    v: Any,
    attn_mask: Any = None,
    past_key: Any = None,
    past_value: Any = None,
    nonpad_kv_seqlen: Any = None,
    *,
    is_causal: int = 0,
    kv_num_heads: int | None = None,
    q_num_heads: int | None = None,
    qk_matmul_output_mode: int = 0,
    scale: float | None = None,
    softcap: float = 0.0,
    softmax_precision: int | None = None,
    left_window_size: int = -1,
    right_window_size: int = -1,
) -> tuple[np.ndarray, ...]:
    op = "Attention"
    q_in, k_in, v_in = np.asarray(q), np.asarray(k), np.asarray(v)
    three_d = q_in.ndim == 3
    Q = _wide(_to_4d(op, q_in, q_num_heads, "Q"))
    K = _wide(_to_4d(op, k_in, kv_num_heads, "K"))
    V = _wide(_to_4d(op, v_in, kv_num_heads, "V"))
    past_length = 0
    if (past_key is None) != (past_value is None):
        fail(op, "past_key and past_value must be given together")
    if past_key is not None:
        past_k, past_v = _wide(np.asarray(past_key)), _wide(np.asarray(past_value))
        past_length = past_k.shape[2]
        K = np.concatenate([past_k, K], axis=2)
        V = np.concatenate([past_v, V], axis=2)
    present_key, present_value = K, V
    batch, q_heads, q_length, head_size = Q.shape
    kv_heads, total = K.shape[1], K.shape[2]
    if q_heads % kv_heads:
        fail(op, f"{q_heads} query heads are not a multiple of {kv_heads} key/value heads")
    group = q_heads // kv_heads
    Kx = np.repeat(K, group, axis=1) if group > 1 else K
    Vx = np.repeat(V, group, axis=1) if group > 1 else V
    factor = 1 / np.sqrt(head_size) if scale is None else scale
    scores = (Q @ np.swapaxes(Kx, -1, -2)) * np.asarray(factor, Q.dtype)
    raw = scores
    if softcap > 0:
        scores = softcap * np.tanh(scores / softcap)
    capped = scores
    bias = np.zeros((batch, 1, q_length, total), dtype=scores.dtype)
    if attn_mask is not None:
        mask = np.asarray(attn_mask)
        if mask.shape[-1] < total:  # a short last dim is padded with disallowed positions
            pad = [(0, 0)] * (mask.ndim - 1) + [(0, total - mask.shape[-1])]
            mask = np.pad(mask, pad, constant_values=False if mask.dtype == bool else -np.inf)
        if mask.dtype == bool:
            bias = bias + np.where(mask, 0, -np.inf).astype(scores.dtype)
        else:
            bias = bias + _wide(mask)
    rows = np.arange(q_length).reshape(1, q_length, 1)
    cols = np.arange(total).reshape(1, 1, total)
    if nonpad_kv_seqlen is not None:
        valid = np.asarray(nonpad_kv_seqlen).reshape(-1, 1, 1).astype(np.int64)
        offset = valid - q_length if past_key is None else np.full_like(valid, past_length)
        allowed = cols < valid
    else:
        offset = np.full((1, 1, 1), past_length)
        allowed = np.ones((1, 1, total), dtype=bool)
    position = rows + offset  # absolute position of each query
    if is_causal:
        allowed = allowed & (cols <= position)
    if left_window_size >= 0:
        allowed = allowed & (cols >= position - left_window_size)
    if right_window_size >= 0:
        allowed = allowed & (cols <= position + right_window_size)
    bias = bias + np.where(allowed, 0, -np.inf)[:, None, :, :].astype(scores.dtype)
    scores = capped + bias
    biased = scores
    probs = _softmax(scores, softmax_precision)
    y = probs @ Vx
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(batch, q_length, -1)
    qk_output = {0: raw, 1: capped, 2: biased, 3: probs}.get(qk_matmul_output_mode)
    if qk_output is None:
        fail(op, f"qk_matmul_output_mode must be 0..3, got {qk_matmul_output_mode}")
    return (
        _narrow(y, q_in),
        _narrow(present_key, k_in),
        _narrow(present_value, v_in),
        _narrow(qk_output, q_in),
    )


def register(kernels: KernelRegistry) -> None:
    kernels.add("Attention", attention, since=versions("Attention"))
