"""The RotaryEmbedding kernel: rotate pairs of features by position-dependent angles."""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail
from onnxcraft.ops.versions import versions

__all__ = ["register"]


@compute_in_float32
def rotary_embedding(
    x: Any,
    cos_cache: Any,
    sin_cache: Any,
    position_ids: Any = None,
    *,
    interleaved: int = 0,
    num_heads: int | None = None,
    rotary_embedding_dim: int = 0,
) -> np.ndarray:
    x = np.asarray(x)
    three_d = x.ndim == 3
    if three_d:  # (batch, seq, heads * head_size) -> (batch, heads, seq, head_size)
        if not num_heads:
            fail("RotaryEmbedding", "a 3-D input needs the num_heads attribute")
        batch, seq, hidden = x.shape
        x4 = x.reshape(batch, seq, num_heads, hidden // num_heads).transpose(0, 2, 1, 3)
    elif x.ndim == 4:
        x4 = x
    else:
        fail("RotaryEmbedding", f"the input must be 3-D or 4-D, got shape {list(x.shape)}")
    head = x4.shape[-1]
    dim = rotary_embedding_dim or head
    cos, sin = np.asarray(cos_cache), np.asarray(sin_cache)
    if position_ids is not None:
        positions = np.asarray(position_ids).astype(np.int64)
        cos, sin = cos[positions], sin[positions]  # (batch, seq, dim / 2)
    elif cos.ndim == 2:  # one cache for every batch entry
        cos, sin = cos[None], sin[None]
    cos, sin = cos[:, None, :, : dim // 2], sin[:, None, :, : dim // 2]
    rotated, rest = x4[..., :dim], x4[..., dim:]
    if interleaved:
        first, second = rotated[..., 0::2], rotated[..., 1::2]
    else:
        first, second = rotated[..., : dim // 2], rotated[..., dim // 2 :]
    out_first = first * cos - second * sin
    out_second = second * cos + first * sin
    if interleaved:
        result = np.empty_like(rotated)
        result[..., 0::2], result[..., 1::2] = out_first, out_second
    else:
        result = np.concatenate([out_first, out_second], axis=-1)
    y = np.concatenate([result, rest], axis=-1).astype(x.dtype)
    if three_d:
        return np.asarray(y.transpose(0, 2, 1, 3).reshape(x.shape))
    return y


def register(kernels: KernelRegistry) -> None:
    kernels.add("RotaryEmbedding", rotary_embedding, since=versions("RotaryEmbedding"))
