"""The LinearAttention kernel (opset 27): recurrent linear attention over a matrix state.

Per key/value head the state ``S`` is a ``(d_k, d_v)`` matrix, updated token by token:

    linear       S = S + k v^T
    gated        S = exp(g) S + k v^T
    delta        S = S + k (beta (v - S^T k))^T
    gated_delta  S = exp(g) S + k (beta (v - (exp(g) S)^T k))^T

and the output of a token is ``scale * q^T S``. The decay ``g`` is per key dimension or per
head, ``beta`` per head or one for all heads; each key/value head (and its state) serves a
contiguous group of query heads. As in the standard's function body, everything is computed in
float32 and cast to the input types at the end.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.ops.attention.shapes import head_size, query_group
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import fail
from onnxcraft.ops.lowp import Precision, float_values
from onnxcraft.ops.versions import versions

__all__ = ["linear_attention", "register"]

_OP = "LinearAttention"
_RULES = ("linear", "gated", "delta", "gated_delta")


def _heads_first(x: np.ndarray, heads: int) -> np.ndarray:
    """``(B, T, heads * d)`` float values as ``(B, heads, T, d)``."""
    batch, length, hidden = x.shape
    split: np.ndarray = float_values(x).reshape(batch, length, heads, hidden // heads)
    return np.transpose(split, (0, 2, 1, 3))


def _check_packed(name: str, x: np.ndarray, heads: int, attr: str) -> int:
    """The per-head size of a packed ``(B, T, heads * d)`` input."""
    if x.ndim != 3:
        fail(_OP, f"{name} must be 3-D (batch, sequence, heads * head_size); got {list(x.shape)}")
    size = head_size(x.shape[2], heads)
    if size is None:
        fail(_OP, f"{name}: last dimension {x.shape[2]} is not divisible by {attr}={heads}")
    return size


def _check_heads(q_num_heads: int | None, kv_num_heads: int | None) -> tuple[int, int]:
    if q_num_heads is None or kv_num_heads is None:
        fail(_OP, "the attributes q_num_heads and kv_num_heads are required")
    if q_num_heads <= 0 or kv_num_heads <= 0 or query_group(q_num_heads, kv_num_heads) is None:
        fail(
            _OP,
            f"q_num_heads must be a positive multiple of kv_num_heads; got "
            f"q_num_heads={q_num_heads}, kv_num_heads={kv_num_heads}",
        )
    return q_num_heads, kv_num_heads


def _gate(
    decay: Any, rule: str, batch: int, length: int, heads: int, d_k: int
) -> np.ndarray | None:
    """exp(decay) as ``(B, H, T, d_k or 1, 1)``, or None for the ungated rules."""
    if rule not in ("gated", "gated_delta"):
        return None
    if decay is None:
        fail(_OP, f"update_rule={rule!r} requires the decay input")
    decay = np.asarray(decay)
    allowed = [(batch, length, heads * d_k), (batch, length, heads)]
    if decay.shape not in allowed:
        fail(
            _OP,
            f"decay must have shape {list(allowed[0])} (per key dimension) or "
            f"{list(allowed[1])} (per head); got {list(decay.shape)}",
        )
    gate: np.ndarray = np.exp(_heads_first(decay, heads))  # (B, H, T, d_k or 1)
    return gate[..., None]


def _rate(beta: Any, rule: str, batch: int, length: int, heads: int) -> np.ndarray | None:
    """beta as ``(B, H or 1, T, 1)``, or None for the rules without a delta."""
    if rule not in ("delta", "gated_delta"):
        return None
    if beta is None:
        fail(_OP, f"update_rule={rule!r} requires the beta input")
    beta = np.asarray(beta)
    if beta.shape not in [(batch, length, heads), (batch, length, 1)]:
        fail(
            _OP,
            f"beta must have shape {[batch, length, heads]} or {[batch, length, 1]}; "
            f"got {list(beta.shape)}",
        )
    rate: np.ndarray = np.transpose(float_values(beta), (0, 2, 1))
    return rate[..., None]


def _initial_state(past_state: Any, shape: tuple[int, int, int, int]) -> np.ndarray:
    if past_state is None:
        return np.zeros(shape, dtype=np.float32)
    past = np.asarray(past_state)
    if past.shape != shape:
        fail(
            _OP,
            f"past_state must have shape (batch, kv_num_heads, d_k, d_v) = {list(shape)}; "
            f"got {list(past.shape)}",
        )
    return float_values(past).astype(np.float32)


def _scan(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    state: np.ndarray,
    gate: np.ndarray | None,
    rate: np.ndarray | None,
    scale: np.float32,
) -> tuple[np.ndarray, np.ndarray]:
    """Run the recurrence over the sequence axis; returns (outputs (B, Hq, T, d_v), state)."""
    batch, q_heads, length, d_k = q.shape
    kv_heads, d_v = state.shape[1], state.shape[3]
    group = q_heads // kv_heads
    # Query heads grouped by the key/value head whose state they read.
    queries = q.reshape(batch, kv_heads, group, length, 1, d_k)
    outputs = np.empty((batch, kv_heads, group, length, d_v), dtype=np.float32)
    for t in range(length):  # a recurrence: each token needs the previous state
        if gate is not None:
            state = state * gate[:, :, t]
        k_t, write = k[:, :, t], v[:, :, t]
        if rate is not None:
            retrieved = np.matmul(np.swapaxes(state, -1, -2), k_t[..., None])[..., 0]
            write = rate[:, :, t] * (write - retrieved)
        state = state + k_t[..., :, None] * write[..., None, :]
        read = np.matmul(queries[:, :, :, t], state[:, :, None])  # (B, Hkv, G, 1, d_v)
        outputs[:, :, :, t] = scale * read[..., 0, :]
    return outputs.reshape(batch, q_heads, length, d_v), state


def _check_types(query: np.ndarray, **others: Any) -> None:
    """key, value, decay and beta share the element type of query (type constraint T)."""
    for name, x in others.items():
        if x is not None and np.asarray(x).dtype != query.dtype:
            fail(
                _OP,
                f"{name} must have the element type of query ({query.dtype}); "
                f"got {np.asarray(x).dtype}",
            )


def linear_attention(
    query: Any,
    key: Any,
    value: Any,
    past_state: Any = None,
    decay: Any = None,
    beta: Any = None,
    *,
    q_num_heads: int | None = None,
    kv_num_heads: int | None = None,
    update_rule: str = "gated_delta",
    scale: float = 0.0,
    chunk_size: int = 64,  # a tuning hint for chunked algorithms; the result does not depend on it
) -> tuple[np.ndarray, np.ndarray]:
    if update_rule not in _RULES:
        fail(_OP, f"update_rule must be one of {', '.join(_RULES)}; got {update_rule!r}")
    q_heads, kv_heads = _check_heads(q_num_heads, kv_num_heads)
    q_in, k_in, v_in = np.asarray(query), np.asarray(key), np.asarray(value)
    out_type = Precision.of(_OP, q_in, "query")
    _check_types(q_in, key=k_in, value=v_in, decay=decay, beta=beta)
    d_k = _check_packed("query", q_in, q_heads, "q_num_heads")
    key_size = _check_packed("key", k_in, kv_heads, "kv_num_heads")
    d_v = _check_packed("value", v_in, kv_heads, "kv_num_heads")
    if not q_in.shape[:2] == k_in.shape[:2] == v_in.shape[:2]:
        fail(
            _OP,
            f"query, key and value must share (batch, sequence); got {list(q_in.shape)}, "
            f"{list(k_in.shape)} and {list(v_in.shape)}",
        )
    if key_size != d_k:
        fail(_OP, f"key head size {key_size} differs from query head size {d_k}")
    batch, length = q_in.shape[:2]
    if d_k == 0 and scale == 0.0:
        fail(_OP, "the head size d_k is 0, so the default scale 1/sqrt(d_k) is undefined")
    state = _initial_state(past_state, (batch, kv_heads, d_k, d_v))
    state_type = (
        out_type if past_state is None else Precision.of(_OP, np.asarray(past_state), "past_state")
    )
    gate = _gate(decay, update_rule, batch, length, kv_heads, d_k)
    rate = _rate(beta, update_rule, batch, length, kv_heads)
    factor = np.float32(1) / np.sqrt(np.float32(d_k)) if scale == 0.0 else np.float32(scale)
    outputs, state = _scan(
        _heads_first(q_in, q_heads),
        _heads_first(k_in, kv_heads),
        _heads_first(v_in, kv_heads),
        state,
        gate,
        rate,
        factor,
    )
    packed = outputs.transpose(0, 2, 1, 3).reshape(batch, length, q_heads * d_v)
    return out_type.encode(packed), state_type.encode(state)


def register(kernels: KernelRegistry) -> None:
    kernels.add("LinearAttention", linear_attention, since=versions("LinearAttention"))
