"""Kernels of the attention family: Attention (opsets 23-25) and TensorScatter (opset 24).

Attention takes Q, K and V as 4-D ``(batch, heads, sequence, head_size)`` or 3-D ``(batch,
sequence, heads * head_size)`` tensors; K/V heads are shared by contiguous groups of query heads
(GQA/MQA). The bias added to the scores combines the boolean or float ``attn_mask``, the
offset-aware causal mask, the padding given by ``nonpad_kv_seqlen`` and the left/right windows;
a query row with no allowed key gives zeros rather than NaN.

The arithmetic follows the standard's function body step by step: every step's result is
rounded to the input's element type (``_lowp.Precision``), so bfloat16 and float16 results
agree with the standard's rounding, not just with a float32 computation rounded once. The other
kernels of the family (``linear_attention``, ``flex_attention``) share these helpers.

TensorScatter writes an update into a fixed-size cache along its sequence axis, at a per-batch
start index, linearly or wrapping around (``mode="circular"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.ops.attention.shapes import head_size, query_group
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import fail, normalize_axis
from onnxcraft.ops.lowp import Precision, float_values
from onnxcraft.ops.versions import versions

__all__ = ["attention", "check_heads", "register", "tensor_scatter"]

# -- Attention ------------------------------------------------------------------------------------

_OP = "Attention"


def _to_4d(x: np.ndarray, heads: int | None, name: str, attr: str) -> np.ndarray:
    """``x`` as ``(batch, heads, sequence, head_size)``."""
    if x.ndim == 4:
        if heads is not None and heads != x.shape[1]:
            fail(_OP, f"{attr}={heads} disagrees with the {x.shape[1]} heads of 4-D {name}")
        return x
    if heads is None or heads <= 0:
        fail(_OP, f"{name} is 3-D, so the attribute {attr} (a positive head count) is required")
    batch, length, hidden = x.shape
    size = head_size(hidden, heads)
    if size is None:
        fail(_OP, f"{name}: hidden size {hidden} is not divisible by {attr}={heads}")
    split: np.ndarray = x.reshape(batch, length, heads, size)
    return np.transpose(split, (0, 2, 1, 3))


def _check_ranks(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> None:
    if q.ndim not in (3, 4):
        fail(_OP, f"Q must be 3-D or 4-D, got shape {list(q.shape)}")
    for name, x in (("K", k), ("V", v)):
        if x.ndim != q.ndim:
            fail(_OP, f"{name} must have the rank of Q ({q.ndim}), got shape {list(x.shape)}")


def check_heads(op: str, q: np.ndarray, k: np.ndarray, v: np.ndarray) -> int:
    """Shapes of the 4-D Q, K (with past) and V (with past) agree with each other; returns how
    many query heads each key/value head serves."""
    if not q.shape[0] == k.shape[0] == v.shape[0]:
        fail(op, f"batch sizes differ: Q {q.shape[0]}, K {k.shape[0]}, V {v.shape[0]}")
    if q.shape[3] != k.shape[3]:
        fail(op, f"Q and K must share the head size; got {q.shape[3]} and {k.shape[3]}")
    if k.shape[1:3] != v.shape[1:3]:
        fail(
            op,
            f"K and V must have the same heads and sequence length; got (heads, sequence) "
            f"{tuple(k.shape[1:3])} and {tuple(v.shape[1:3])}",
        )
    group = query_group(q.shape[1], k.shape[1])
    if group is None:
        fail(op, f"{q.shape[1]} query heads are not a multiple of {k.shape[1]} key/value heads")
    return group


def _append_cache(new: np.ndarray, past: Any, name: str) -> np.ndarray:
    """The present cache: ``past`` followed by ``new`` along the sequence axis."""
    if past is None:
        return new
    past = np.asarray(past)
    if past.ndim != 4 or past.shape[:2] != new.shape[:2] or past.shape[3] != new.shape[3]:
        fail(
            _OP,
            f"{name} must be (batch, kv_heads, past_length, head_size) = "
            f"({new.shape[0]}, {new.shape[1]}, *, {new.shape[3]}); got {list(past.shape)}",
        )
    if past.dtype != new.dtype:
        fail(_OP, f"{name} must have the element type of the new values ({new.dtype})")
    return np.concatenate([past, new], axis=2)


def _mask_bias(mask: Any, t1: Precision, total: int) -> np.ndarray:
    """The additive bias of ``attn_mask``; a short last axis is padded with -inf."""
    mask = np.asarray(mask)
    if mask.ndim > 4:
        fail(_OP, f"attn_mask must have rank <= 4, got shape {list(mask.shape)}")
    if mask.dtype == np.bool_:
        bias = np.where(mask, 0, -np.inf).astype(t1.work)
    else:
        bias = t1.round(float_values(mask))
    width = bias.shape[-1] if bias.ndim else 1
    if width > total:
        fail(_OP, f"attn_mask's last dimension {width} exceeds the {total} keys")
    if bias.ndim and width < total:
        pad = [(0, 0)] * (bias.ndim - 1) + [(0, total - width)]
        bias = np.pad(bias, pad, constant_values=-np.inf)
    return bias


def _add_mask(bias: np.ndarray, mask: np.ndarray, scores_shape: tuple[int, ...]) -> np.ndarray:
    """``bias + mask``, where the mask must broadcast to the shape of the scores."""
    try:
        combined = np.broadcast_shapes(bias.shape, mask.shape, scores_shape)
    except ValueError:
        combined = ()
    if combined != scores_shape:
        fail(
            _OP,
            f"attn_mask of shape {list(mask.shape)} (padded to the key count) does not broadcast "
            f"to (batch, q_heads, q_length, total_length) = {list(scores_shape)}",
        )
    total: np.ndarray = bias + mask
    return total


def _allowed_keys(
    q_length: int,
    total: int,
    *,
    offset: np.ndarray,
    valid: np.ndarray | None,
    is_causal: int,
    left: int,
    right: int,
) -> np.ndarray:
    """Which keys each query may attend, shape ``(batch or 1, 1, q_length, total)``.

    ``offset`` holds the absolute position of the first query per batch (shape ``(n, 1, 1)``),
    ``valid`` the number of non-padding keys per batch.
    """
    rows = np.arange(q_length).reshape(1, q_length, 1)
    cols = np.arange(total).reshape(1, 1, total)
    position = rows + offset
    allowed = np.ones((1, 1, total), dtype=bool)
    if valid is not None:
        allowed = allowed & (cols < valid)
    if is_causal:
        allowed = allowed & (cols <= position)
    if left >= 0:
        allowed = allowed & (cols >= position - left)
    if right >= 0:
        allowed = allowed & (cols <= position + right)
    return np.broadcast_to(allowed, np.broadcast_shapes(allowed.shape, position.shape))[:, None]


def _key_positions(
    nonpad_kv_seqlen: Any, batch: int, q_length: int, past_length: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """(offset of the first query, number of valid keys) per batch."""
    if nonpad_kv_seqlen is None:
        return np.full((1, 1, 1), past_length), None
    valid = np.asarray(nonpad_kv_seqlen)
    if valid.shape != (batch,) or valid.dtype.kind not in "iu":
        fail(
            _OP,
            f"nonpad_kv_seqlen must be an integer vector of shape ({batch},); got "
            f"{valid.dtype} of shape {list(valid.shape)}",
        )
    valid = valid.astype(np.int64).reshape(-1, 1, 1)
    return valid - q_length, valid  # an external cache: the queries end at the last valid key


def _softcap(t1: Precision, scores: np.ndarray, softcap: float) -> np.ndarray:
    if softcap <= 0:
        return scores
    cap = t1.round(softcap)
    return t1.round(t1.tanh(t1.round(scores / cap)) * cap)


def _fully_masked_rows(bias: np.ndarray) -> np.ndarray:
    if bias.shape[-1] == 0:
        return np.ones(bias.shape[:-1] + (1,), dtype=bool)
    return np.asarray(np.isneginf(np.max(bias, axis=-1, keepdims=True)))


def _scaled_scores(
    t1: Precision, queries: np.ndarray, keys: np.ndarray, scale: float | None
) -> np.ndarray:
    """Q K^T with Q and K each scaled by sqrt(scale) in the input type, as the body does."""
    head_size = queries.shape[3]
    if head_size == 0 and scale is None:
        fail(_OP, "Q has head size 0, so the default scale 1/sqrt(head_size) is undefined")
    factor = t1.round(np.sqrt(1 / np.sqrt(head_size) if scale is None else scale))
    scaled_k = np.swapaxes(t1.round(keys * factor), -1, -2)
    return t1.matmul(t1.round(queries * factor), scaled_k)


def _bias(
    t1: Precision,
    attn_mask: Any,
    nonpad_kv_seqlen: Any,
    scores_shape: tuple[int, int, int, int],
    past_length: int,
    *,
    is_causal: int,
    left: int,
    right: int,
) -> np.ndarray:
    """The additive bias: attn_mask plus -inf where causality, padding or windows forbid."""
    batch, _, q_length, total = scores_shape
    offset, valid = _key_positions(nonpad_kv_seqlen, batch, q_length, past_length)
    allowed = _allowed_keys(
        q_length, total, offset=offset, valid=valid, is_causal=is_causal, left=left, right=right
    )
    bias = np.where(allowed, 0, -np.inf).astype(t1.work)
    if attn_mask is None:
        return bias
    return _add_mask(bias, _mask_bias(attn_mask, t1, total), scores_shape)


def _check_options(
    past_key: Any, past_value: Any, nonpad_kv_seqlen: Any, qk_matmul_output_mode: int
) -> None:
    if qk_matmul_output_mode not in (0, 1, 2, 3):
        fail(_OP, f"qk_matmul_output_mode must be 0, 1, 2 or 3; got {qk_matmul_output_mode}")
    if (past_key is None) != (past_value is None):
        fail(_OP, "past_key and past_value must be given together")
    if past_key is not None and nonpad_kv_seqlen is not None:
        fail(_OP, "nonpad_kv_seqlen (an external cache) cannot be combined with past_key")


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
    q_in, k_in, v_in = np.asarray(q), np.asarray(k), np.asarray(v)
    _check_ranks(q_in, k_in, v_in)
    _check_options(past_key, past_value, nonpad_kv_seqlen, qk_matmul_output_mode)
    t1 = Precision.of(_OP, q_in, "Q")
    Q = _to_4d(q_in, q_num_heads, "Q", "q_num_heads")
    k4 = _to_4d(k_in, kv_num_heads, "K", "kv_num_heads")
    present_key = _append_cache(k4, past_key, "past_key")
    present_value = _append_cache(
        _to_4d(v_in, kv_num_heads, "V", "kv_num_heads"), past_value, "past_value"
    )
    group = check_heads(_OP, Q, present_key, present_value)  # query heads per K/V head
    batch, q_heads, q_length, _ = Q.shape
    scores_shape = (batch, q_heads, q_length, present_key.shape[2])
    keys = np.repeat(float_values(present_key), group, axis=1)
    values = np.repeat(float_values(present_value), group, axis=1)

    raw = _scaled_scores(t1, float_values(Q), keys, scale)
    capped = _softcap(t1, raw, softcap)
    bias = _bias(
        t1,
        attn_mask,
        nonpad_kv_seqlen,
        scores_shape,
        present_key.shape[2] - k4.shape[2],
        is_causal=is_causal,
        left=left_window_size,
        right=right_window_size,
    )
    biased = t1.round(capped + bias)
    work = (
        t1
        if softmax_precision is None
        else Precision.named(_OP, softmax_precision, "softmax_precision")
    )
    probs = t1.round(work.softmax(work.round(biased), zero_masked_rows=True))
    probs = np.where(_fully_masked_rows(bias), 0, probs).astype(t1.work)
    y = t1.matmul(probs, values)
    if q_in.ndim == 3:
        y = y.transpose(0, 2, 1, 3).reshape(batch, q_length, -1)
    qk_output = np.broadcast_to((raw, capped, biased, probs)[qk_matmul_output_mode], scores_shape)
    return t1.encode(y), present_key, present_value, t1.encode(qk_output)


# -- TensorScatter --------------------------------------------------------------------------------


def _write_positions(
    write_indices: Any, batch: int, length: int, capacity: int, mode: str
) -> np.ndarray:
    """The cache position of every update step per batch, shape ``(batch, length)``."""
    op = "TensorScatter"
    if write_indices is None:
        starts = np.zeros(batch, dtype=np.int64)
    else:
        starts = np.asarray(write_indices)
        if starts.shape != (batch,) or starts.dtype.kind not in "iu":
            fail(
                op,
                f"write_indices must be an integer vector of shape ({batch},) (one start per "
                f"batch entry); got {starts.dtype} of shape {list(starts.shape)}",
            )
        starts = starts.astype(np.int64)
    positions = starts[:, None] + np.arange(length)[None, :]
    if mode == "circular":
        return positions % capacity if capacity else positions
    bad = (starts < 0) | (starts + length > capacity)
    if np.any(bad):
        b = int(np.argmax(bad))
        fail(
            op,
            f"mode='linear' needs 0 <= write_indices[b] and write_indices[b] + {length} (update "
            f"length) <= {capacity} (cache length); batch {b} has write index {int(starts[b])}",
        )
    return positions


def _fits_cache(update: tuple[int, ...], cache: tuple[int, ...], axis: int) -> bool:
    """``update`` has the cache's shape except along ``axis``, where it is not longer."""
    if len(update) != len(cache) or update[axis] > cache[axis]:
        return False
    return all(u == c for i, (u, c) in enumerate(zip(update, cache)) if i != axis)


def tensor_scatter(
    past_cache: Any,
    update: Any,
    write_indices: Any = None,
    *,
    axis: int = -2,
    mode: str = "linear",
) -> np.ndarray:
    op = "TensorScatter"
    cache, new = np.asarray(past_cache), np.asarray(update)
    if mode not in ("linear", "circular"):
        fail(op, f"mode must be 'linear' or 'circular'; got {mode!r}")
    if cache.ndim < 2:
        fail(op, f"past_cache needs a batch and a sequence axis; got shape {list(cache.shape)}")
    axis = normalize_axis(axis, cache.ndim, op=op)
    if axis == 0:
        fail(op, "axis must not be 0: axis 0 is the batch dimension")
    if new.dtype != cache.dtype:
        fail(
            op, f"update must have the element type of past_cache ({cache.dtype}); got {new.dtype}"
        )
    if not _fits_cache(new.shape, cache.shape, axis):
        fail(
            op,
            f"update must have past_cache's shape {list(cache.shape)} except along axis {axis}, "
            f"where it may be shorter; got {list(new.shape)}",
        )
    length, capacity = new.shape[axis], cache.shape[axis]
    positions = _write_positions(write_indices, cache.shape[0], length, capacity, mode)
    present: np.ndarray = np.array(cache, copy=True)
    if length == 0:
        return present
    # Index of shape (batch, 1, ..., length, ..., 1), broadcast over the other axes.
    index_shape = [1] * cache.ndim
    index_shape[0], index_shape[axis] = cache.shape[0], length
    index = np.broadcast_to(positions.reshape(index_shape), new.shape)
    np.put_along_axis(present, index, new, axis=axis)
    return present


def register(kernels: KernelRegistry) -> None:
    kernels.add("Attention", attention, since=versions("Attention"))
    kernels.add("TensorScatter", tensor_scatter, since=versions("TensorScatter"))
