"""CausalConvWithState: a stateful causal depthwise 1-D convolution with optional SiLU."""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import compute_in_float32, fail

__all__ = ["register"]

ACTIVATIONS = ("none", "silu", "swish")


@compute_in_float32
def causal_conv_with_state(
    x: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray | None = None,
    past_state: np.ndarray | None = None,
    *,
    activation: str = "none",
) -> tuple[np.ndarray, np.ndarray]:
    """CausalConvWithState-27: output and the last k-1 positions as the next state."""
    op = "CausalConvWithState"
    if activation not in ACTIVATIONS:
        fail(op, f"activation must be one of {ACTIVATIONS}, got {activation!r}")
    if x.ndim != 3:
        fail(op, f"input must have shape (batch, channels, length), got {x.shape}")
    batch, channels, length = x.shape
    if weight.ndim != 3 or weight.shape[:2] != (channels, 1):
        fail(op, f"weight must have shape ({channels}, 1, k), got {weight.shape}")
    k = weight.shape[2]
    state_shape = (batch, channels, k - 1)
    if past_state is not None and past_state.shape != state_shape:
        fail(op, f"past_state must have shape {state_shape}, got {past_state.shape}")
    if bias is not None and bias.shape != (channels,):
        fail(op, f"bias must have shape ({channels},), got {bias.shape}")
    ct: Any = np.float64 if x.dtype == np.float64 else np.float32
    history = np.zeros(state_shape, ct) if past_state is None else past_state.astype(ct)
    sequence = np.concatenate([history, x.astype(ct)], axis=2)  # (B, C, k - 1 + L)
    taps = weight.astype(ct)[:, 0, :]  # (C, k)
    y = np.zeros((batch, channels, length), ct)
    for j in range(k):
        y += sequence[:, :, j : j + length] * taps[:, j][np.newaxis, :, np.newaxis]
    if bias is not None:
        y += bias.astype(ct)[np.newaxis, :, np.newaxis]
    if activation in ("silu", "swish"):
        y = y / (1 + np.exp(-y))
    present = sequence[:, :, sequence.shape[2] - (k - 1) :]
    return y.astype(x.dtype), present.astype(x.dtype)


def register(kernels: KernelRegistry) -> None:
    """Add CausalConvWithState to ``kernels``."""
    kernels.add("CausalConvWithState", causal_conv_with_state, since=27)
